/**
 * @module
 * A demo scenario: phases of traffic, each a share of the requests, with the faults the mock
 * providers inject during it and operator actions (a provider revoking a key, an operator rotating
 * a new one in through the companion Worker) at a point within it. The default scenario tells the
 * story a newcomer needs: healthy, primary outage, 429 storm, revoked key fixed by rotation,
 * recovery. A scenario file (YAML or JSON) replaces it.
 */
import { readFile } from "node:fs/promises";
import * as z from "zod";
import { documentIssues, formatIssues } from "../config/document.ts";
import { readYamlDocument } from "../config/yaml-document.ts";
import { faultRuleSchema } from "../emulator/mocks/index.ts";
import { StepwiseError } from "../errors/index.ts";

const actionSchema = z.strictObject({
  /** Where in the phase the action happens, 0 (its start) to 1 (its end). */
  at: z.number().min(0).max(1).default(0),
  kind: z.enum(["revoke-key", "rotate-key"], {
    error:
      'action kind must be "revoke-key" (the provider revokes the current key) or "rotate-key" (a new key is rotated in through the Worker)',
  }),
  provider: z.string().min(1),
});

const phaseSchema = z.strictObject({
  name: z.string().min(1),
  /** What the phase shows, printed when it starts. */
  description: z.string().default(""),
  /** Share of the run's requests, relative to the other phases. */
  share: z.number().positive({ error: "share must be more than 0" }),
  faults: z.array(faultRuleSchema).default([]),
  actions: z.array(actionSchema).default([]),
});

export const scenarioSchema = z.strictObject({
  gateway: z.string().min(1).optional(),
  route: z.string().min(1).default("default"),
  /**
   * A route with a routing policy that every other call takes, with a plan in its metadata and
   * questions of three complexities; the same as `route` sends every call there. Default: none.
   */
  policyRoute: z.string().min(1).optional(),
  phases: z.array(phaseSchema).min(1, { error: "a scenario needs at least one phase" }),
});

export type DemoScenario = z.infer<typeof scenarioSchema>;
export type DemoPhase = DemoScenario["phases"][number];
export type DemoAction = DemoPhase["actions"][number];

/**
 * The default story, on the dev stack's `chat-prod` gateway: its `default` route, and every other
 * call on `assistant`, whose routing policy tiers calls by plan and complexity.
 */
export function defaultScenario(primary = "anthropic", secondary = "openai"): DemoScenario {
  return scenarioSchema.parse({
    route: "default",
    policyRoute: "assistant",
    phases: [
      { name: "healthy", description: "every provider answers", share: 0.2 },
      {
        name: "primary outage",
        description: `${primary} answers 503 or hangs past its timeout`,
        share: 0.2,
        faults: [
          { provider: primary, kind: "unavailable", rate: 0.5 },
          { provider: primary, kind: "slow-first-byte", delayMs: 5_000 },
        ],
      },
      {
        name: "429 storm",
        description: `${primary} rate-limits most calls with Retry-After, ${secondary} some`,
        share: 0.15,
        faults: [
          { provider: primary, kind: "rate-limit", rate: 0.8, retryAfterSeconds: 1 },
          { provider: secondary, kind: "rate-limit", rate: 0.4, retryAfterSeconds: 1 },
        ],
      },
      {
        name: "revoked key",
        description: `${primary} revokes the key; an operator rotates a new one in through the Worker`,
        share: 0.25,
        actions: [
          { at: 0, kind: "revoke-key", provider: primary },
          { at: 0.4, kind: "rotate-key", provider: primary },
        ],
      },
      { name: "recovery", description: "every provider answers again", share: 0.2 },
    ],
  });
}

/**
 * Reads a scenario file (YAML or JSON).
 * @throws {StepwiseError} `scenario_not_found` (the file cannot be read), `scenario_unreadable`
 * (not YAML or JSON) or `scenario_invalid`, naming every bad field and its line.
 */
export async function loadScenario(file: string): Promise<DemoScenario> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const issues = [
      {
        path: "",
        message: `cannot read ${file} (${(error as NodeJS.ErrnoException).code}); check --scenario`,
      },
    ];
    throw new StepwiseError({
      code: "scenario_not_found",
      message: formatIssues(file, "demo scenario", issues),
      cause: error,
    });
  }
  const document = readYamlDocument(text);
  if (!document.ok) {
    throw new StepwiseError({
      code: "scenario_unreadable",
      message: formatIssues(file, "demo scenario", document.issues),
    });
  }
  const result = scenarioSchema.safeParse(document.value, { reportInput: true });
  if (result.success) return result.data;
  const issues = documentIssues(result.error.issues, {
    locate: document.locate,
    schema: scenarioSchema,
    input: document.value,
  });
  throw new StepwiseError({
    code: "scenario_invalid",
    message: formatIssues(file, "demo scenario", issues),
  });
}

/** Splits `total` requests over the phases by share; every request lands in exactly one phase. */
export function phaseSizes(phases: readonly DemoPhase[], total: number): number[] {
  const sum = phases.reduce((acc, phase) => acc + phase.share, 0);
  const sizes = phases.map((phase) => Math.floor((phase.share / sum) * total));
  let left = total - sizes.reduce((acc, size) => acc + size, 0);
  for (let index = 0; left > 0; index = (index + 1) % sizes.length, left--) sizes[index]! += 1;
  return sizes;
}
