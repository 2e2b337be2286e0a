/**
 * validate ⇔ the program's preflight (issue #27): for generated stack configs, with and without
 * planted mistakes, what `stepwise validate` decides on the stack file is what the Pulumi program
 * decides under `pulumi.runtime.setMocks` — what validate passes, the program builds; what the
 * program refuses, validate reports, problem for problem. Both call `judgeConfig`; this test holds
 * that nothing else (a secret check, a parse step) decides on either side alone.
 */
import * as pulumi from "@pulumi/pulumi";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { readConfigInput } from "../../src/config/index.ts";
import { buildCurrentStack } from "../../src/pulumi/program.ts";
import { judgeConfig } from "../../src/routes/config-verdict.ts";
import {
  mistakesArbitrary,
  type PlantedConfig,
  plantMistakes,
  skeletonArbitrary,
  withSecureValues,
} from "../config/planted-mistakes.ts";
import { fixtureBundlePath, installMocks, type Recorder } from "./helpers.ts";

let recorder: Recorder;

beforeAll(async () => {
  ({ recorder } = await installMocks("generated"));
});

/** What `stepwise validate` decides on the stack file: the error lines (path: message). */
function validateVerdict(planted: PlantedConfig): string[] {
  const config = Object.fromEntries(
    Object.entries(withSecureValues(planted)).map(([key, value]) => [`stepwise:${key}`, value]),
  );
  const text = stringify({ config });
  const { input, locate, topLevelKey } = readConfigInput(text, "Pulumi.generated.yaml");
  const verdict = judgeConfig(input, { locate, ...(topLevelKey ? { topLevelKey } : {}) });
  return verdict.errors.map((error) => `${error.path}: ${error.message}`).sort();
}

/** What the program decides with the same config as the stack's (secrets as secrets). */
function programVerdict(planted: PlantedConfig): string[] {
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(planted.input)) {
    config[`stepwise:${key}`] = typeof value === "string" ? value : JSON.stringify(value);
  }
  const secretKeys: string[] = [];
  if (planted.secrets.rotateToken !== undefined) {
    config["stepwise:rotateToken"] = planted.secrets.rotateToken;
    secretKeys.push("stepwise:rotateToken");
  }
  if (Object.keys(planted.secrets.byokKeys).length > 0) {
    config["stepwise:byokKeys"] = JSON.stringify(planted.secrets.byokKeys);
    secretKeys.push("stepwise:byokKeys");
  }
  pulumi.runtime.setAllConfig(config, secretKeys);
  const before = recorder.resources.length;
  try {
    buildCurrentStack({ workerBundlePath: fixtureBundlePath });
    return [];
  } catch (error) {
    expect(pulumi.RunError.isInstance(error)).toBe(true);
    const cause = (error as Error).cause as { issues: { path: string; message: string }[] };
    // A refused config registers nothing.
    expect(recorder.resources.length).toBe(before);
    return cause.issues.map((issue) => `${issue.path}: ${issue.message}`).sort();
  }
}

describe("validate ⇔ the Pulumi program's preflight", () => {
  it("agree on every generated config: same verdict, same problems", () => {
    let refused = 0;
    let accepted = 0;
    fc.assert(
      fc.property(skeletonArbitrary, mistakesArbitrary, (skeleton, mistakes) => {
        const planted = plantMistakes(skeleton, mistakes);
        const byValidate = validateVerdict(planted);
        const byProgram = programVerdict(planted);
        expect(byProgram).toEqual(byValidate);
        if (byValidate.length > 0) refused++;
        else accepted++;
      }),
      { numRuns: 120 },
    );
    // Both sides of the equivalence were exercised.
    expect(refused).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
  });
});
