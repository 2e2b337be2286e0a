/**
 * @module
 * Fault schedules as data: the zod schema `faultScheduleSchema`, `parseFaultSchedule` for values
 * from code or the admin endpoint, and `loadFaultSchedule` for YAML or JSON scenario files.
 * Every failure is a `FaultScheduleError` naming each bad field (and its line in a file).
 * @example
 * // faults.yaml
 * // seed: 42
 * // rules:
 * //   - { provider: anthropic, kind: overloaded, count: 3 }
 * //   - { provider: openai, model: gpt-4o-mini, kind: rate-limit, rate: 0.2, retryAfterSeconds: 2 }
 * const schedule = await loadFaultSchedule("faults.yaml");
 */

import { readFile } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { documentIssues, type Locate } from "../../config/document.ts";
import { providerSlugSchema } from "../../config/schema.ts";
import { readYamlDocument } from "../../config/yaml-document.ts";
import { FaultScheduleError } from "./errors.ts";
import type { FaultKind, FaultRule, FaultSchedule } from "./types.ts";

/** Every fault kind, in the order of `FaultKind`. */
export const faultKinds = [
  "rate-limit",
  "rate-limit-no-retry-after",
  "server-error-once",
  "unavailable",
  "overloaded",
  "connection-reset",
  "no-response",
  "slow-first-byte",
  "stream-cut",
  "stream-stall",
  "malformed-chunk",
  "missing-done",
  "stream-error",
  "stream-unfinished",
  "prefill-refused",
  "context-length",
  "content-filter",
  "empty-body",
  "invalid-body",
  "down",
  "guardrail-prompt-blocked",
  "guardrail-response-blocked",
  "guardrail-no-credits",
  "guardrail-unavailable",
] as const satisfies readonly FaultKind[];

// Fails to compile when `FaultKind` gains a kind that is missing above.
const everyKindListed: Exclude<FaultKind, (typeof faultKinds)[number]> extends never
  ? true
  : never = true;
void everyKindListed;

const delayKinds: readonly FaultKind[] = ["slow-first-byte", "stream-stall"];
const retryAfterKinds: readonly FaultKind[] = ["rate-limit"];

/** One rule of a fault schedule; see `FaultRule` for each field. */
export const faultRuleSchema = z
  .strictObject({
    kind: z.enum(faultKinds, {
      error: (issue) =>
        `unknown fault kind ${JSON.stringify(issue.input)}: use one of ${faultKinds.join(", ")}`,
    }),
    provider: providerSlugSchema.optional(),
    model: z
      .string()
      .min(1, { error: "model must not be empty; leave it out for all models" })
      .optional(),
    rate: z
      .number()
      .min(0, { error: "rate is a probability from 0 to 1" })
      .max(1, { error: "rate is a probability from 0 to 1 (0.2 = one attempt in five)" })
      .optional(),
    count: z
      .int()
      .min(1, { error: "count must be at least 1; remove the rule to disable it" })
      .optional(),
    fromMs: z.int().min(0, { error: "fromMs is epoch milliseconds" }).optional(),
    untilMs: z.int().min(0, { error: "untilMs is epoch milliseconds" }).optional(),
    delayMs: z.int().min(0).max(600_000, { error: "delayMs must be 0 to 600000 ms" }).optional(),
    retryAfterSeconds: z.int().min(0).max(86_400).optional(),
  })
  .superRefine((rule, context) => {
    if (rule.fromMs !== undefined && rule.untilMs !== undefined && rule.untilMs <= rule.fromMs) {
      context.addIssue({
        code: "custom",
        path: ["untilMs"],
        message: "untilMs must be after fromMs",
      });
    }
    if (rule.kind === "down" && rule.fromMs === undefined && rule.untilMs === undefined) {
      context.addIssue({
        code: "custom",
        path: ["kind"],
        message: 'a "down" rule needs fromMs and/or untilMs; use "unavailable" for an endless 503',
      });
    }
    if (rule.delayMs !== undefined && !delayKinds.includes(rule.kind)) {
      context.addIssue({
        code: "custom",
        path: ["delayMs"],
        message: `delayMs applies only to ${delayKinds.join(" and ")}, not ${rule.kind}`,
      });
    }
    if (rule.retryAfterSeconds !== undefined && !retryAfterKinds.includes(rule.kind)) {
      context.addIssue({
        code: "custom",
        path: ["retryAfterSeconds"],
        message: `retryAfterSeconds applies only to rate-limit, not ${rule.kind}`,
      });
    }
  });

/** A fault schedule: an optional seed and the rules, checked in order. */
export const faultScheduleSchema = z.strictObject({
  seed: z.int({ error: "seed must be a whole number" }).optional(),
  rules: z.array(faultRuleSchema, { error: "rules must be a list of fault rules" }),
});

// The schema's output must be usable as the contract's types.
const schemaMatchesContract: z.infer<typeof faultScheduleSchema> extends FaultSchedule
  ? true
  : never = true;
void schemaMatchesContract;

const ruleFields = [
  "kind",
  "provider",
  "model",
  "rate",
  "count",
  "fromMs",
  "untilMs",
  "delayMs",
  "retryAfterSeconds",
];

/** `unknown field "delay" (did you mean "delayMs"?)`. */
function unknownFieldsMessage(keys: readonly string[]): string {
  const described = keys.map((key) => {
    const lower = key.toLowerCase();
    const close = ruleFields.find((field) => {
      const known = field.toLowerCase();
      return known.startsWith(lower) || lower.startsWith(known);
    });
    return close === undefined ? `"${key}"` : `"${key}" (did you mean "${close}"?)`;
  });
  const plural = keys.length > 1 ? "s" : "";
  return `unknown field${plural} ${described.join(", ")}: a schedule has seed and rules; a rule has ${ruleFields.join(", ")}`;
}

export interface ParseFaultScheduleOptions {
  /** Named in error messages: a file path, `PUT /__mock/faults`, `setFaults`. */
  readonly source?: string;
  /** Maps a field path to a 1-based line in the source file. */
  readonly locate?: Locate;
}

/**
 * Validates a fault schedule from anywhere (code, JSON from the admin endpoint, a parsed file).
 * @throws FaultScheduleError (`fault_schedule_invalid`) listing every bad field.
 */
export function parseFaultSchedule(
  input: unknown,
  options: ParseFaultScheduleOptions = {},
): FaultSchedule {
  const result = faultScheduleSchema.safeParse(input);
  if (result.success) return result.data;
  throw new FaultScheduleError({
    code: "fault_schedule_invalid",
    source: options.source ?? "fault schedule",
    issues: documentIssues(result.error.issues, {
      locate: options.locate,
      unknownFields: unknownFieldsMessage,
    }),
  });
}

/**
 * Validates one rule (e.g. built from a `--fault-rule` option).
 * @throws FaultScheduleError (`fault_schedule_invalid`) listing every bad field.
 */
export function parseFaultRule(input: unknown, source = "fault rule"): FaultRule {
  const result = faultRuleSchema.safeParse(input);
  if (result.success) return result.data;
  throw new FaultScheduleError({
    code: "fault_schedule_invalid",
    source,
    issues: documentIssues(result.error.issues, { unknownFields: unknownFieldsMessage }),
  });
}

/**
 * Reads a scenario file (YAML or JSON) holding `{ seed?, rules: [...] }`.
 * @param file path of the file, relative to `cwd`.
 * @throws FaultScheduleError: `fault_schedule_not_found` when the file cannot be read,
 * `fault_schedule_unreadable` when it is not YAML or JSON, `fault_schedule_invalid` with the path
 * and line of every bad field.
 */
export async function loadFaultSchedule(
  file: string,
  options: { readonly cwd?: string } = {},
): Promise<FaultSchedule> {
  const absolute = path.resolve(options.cwd ?? process.cwd(), file);
  let text: string;
  try {
    text = await readFile(absolute, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new FaultScheduleError({
      code: "fault_schedule_not_found",
      source: file,
      issues: [{ path: "", message: `cannot read ${absolute} (${reason}); check the path` }],
      cause: error,
    });
  }
  return parseFaultScheduleText(text, file);
}

/** Parses scenario file text (YAML or JSON) and validates it. */
export function parseFaultScheduleText(text: string, source: string): FaultSchedule {
  const document = readYamlDocument(text);
  if (!document.ok) {
    throw new FaultScheduleError({
      code: "fault_schedule_unreadable",
      source,
      issues: document.issues,
    });
  }
  return parseFaultSchedule(document.value, { source, locate: document.locate });
}
