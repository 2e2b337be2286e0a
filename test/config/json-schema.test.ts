/**
 * The stack file's JSON Schema (issue #27): generated from the zod schema (`z.toJSONSchema`),
 * checked in as `schema/stepwise-config.schema.json` and up to date, referenced from every stack
 * file in the repository with a `yaml-language-server` modeline, and in agreement with `stepwise
 * validate` when a standard validator (ajv) reads it: the dev stack and every generated valid
 * config pass; every planted schema mistake fails at its field. Mistakes JSON Schema cannot
 * express (cross-field rules, what Cloudflare would refuse, missing secrets) are validate's alone.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv, type ErrorObject } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readYamlDocument } from "../../src/config/index.ts";
import { jsonSchemaFileName, stackFileJsonSchemaText } from "../../src/config/json-schema.ts";
import { judgeConfig } from "../../src/routes/config-verdict.ts";
import {
  type MistakeKind,
  mistakesArbitrary,
  plantMistakes,
  skeletonArbitrary,
  withSecureValues,
} from "./planted-mistakes.ts";

const root = path.resolve(import.meta.dirname, "../..");
const schemaPath = path.join(root, "schema", jsonSchemaFileName);
const schema = JSON.parse(readFileSync(schemaPath, "utf8")) as Record<string, unknown>;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
const now = Date.parse("2026-12-01T00:00:00Z");

/** The mistakes JSON Schema can see: a field's type, range, pattern, or an unknown field. */
const shapeMistakes: ReadonlySet<MistakeKind> = new Set([
  "badAccountId",
  "badCacheTtl",
  "badRateTechnique",
  "unknownStepField",
  "misspeltProvider",
]);

const stackFiles = [
  "Pulumi.dev.yaml",
  ...readdirSync(path.join(root, "test/__fixtures__/config"))
    .filter((name) => name.endsWith(".yaml"))
    .map((name) => `test/__fixtures__/config/${name}`),
];

function readStack(file: string): unknown {
  const document = readYamlDocument(readFileSync(path.join(root, file), "utf8"));
  if (!document.ok) throw new Error(`${file} is not YAML`);
  return document.value;
}

/** `gateways[0].cache.ttl` → `/config/stepwise:gateways/0/cache/ttl`, ajv's instancePath. */
function pointerOf(configPath: string): string {
  const segments = configPath
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .filter((segment) => segment !== "");
  const [first, ...rest] = segments;
  return ["", "config", `stepwise:${first}`, ...rest].join("/");
}

/** The fields ajv's errors are about: the instance path, or the unknown property in it. */
function errorPointers(errors: readonly ErrorObject[]): Set<string> {
  return new Set(
    errors.map((error) =>
      error.keyword === "additionalProperties"
        ? `${error.instancePath}/${(error.params as { additionalProperty: string }).additionalProperty}`
        : error.instancePath,
    ),
  );
}

describe("the stack file's JSON Schema", () => {
  it("is checked in up to date with the zod schema", () => {
    expect(
      readFileSync(schemaPath, "utf8"),
      "regenerate it: npx tsx tools/build/json-schema.ts --check-in",
    ).toBe(stackFileJsonSchemaText());
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
  });

  it("is referenced from every stack file in the repository, by a path that resolves", () => {
    for (const file of stackFiles) {
      const text = readFileSync(path.join(root, file), "utf8");
      const modeline = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text);
      expect(modeline, `${file} has no yaml-language-server modeline`).not.toBeNull();
      const target = path.resolve(path.dirname(path.join(root, file)), modeline![1]!);
      expect(target, file).toBe(schemaPath);
    }
  });

  it("accepts the dev stack", () => {
    expect(validate(readStack("Pulumi.dev.yaml")), JSON.stringify(validate.errors)).toBe(true);
  });

  it("rejects the broken examples validate rejects for their shape", () => {
    for (const file of ["broken", "five-mistakes"]) {
      expect(validate(readStack(`test/__fixtures__/config/Pulumi.${file}.yaml`))).toBe(false);
    }
    validate(readStack("test/__fixtures__/config/Pulumi.broken.yaml"));
    const pointers = errorPointers(validate.errors ?? []);
    for (const field of ["accountId", "gateways[0].id", "gateways[0].cache.ttl"]) {
      expect(pointers).toContain(pointerOf(field));
    }
    // A route written as its bare list of steps has no `steps` in the file.
    expect(pointers).toContain("/config/stepwise:gateways/1/routes/default/0/tmeout");
  });

  it("agrees with validate on generated configs: valid ones pass, each schema mistake fails at its field", () => {
    fc.assert(
      fc.property(skeletonArbitrary, mistakesArbitrary, (skeleton, mistakes) => {
        const planted = plantMistakes(skeleton, mistakes);
        const config = withSecureValues(planted);
        const stack = {
          config: Object.fromEntries(
            Object.entries(config).map(([key, value]) => [`stepwise:${key}`, value]),
          ),
        };
        const valid = validate(stack);
        const verdict = judgeConfig(config, { now });
        const shapeKinds = planted.planted.filter((kind) => shapeMistakes.has(kind));
        // Malformed for the schema exactly when validate finds a planted schema mistake.
        expect(valid).toBe(shapeKinds.length === 0);
        if (verdict.errors.length === 0) expect(valid).toBe(true);
        const pointers = errorPointers(validate.errors ?? []);
        const shapePaths = planted.expectedErrors.filter((expectedPath) =>
          /^(accountId|.*\.cache\.ttl|.*\.rateLimit\.technique|.*\.tmeout|.*\.steps\[\d+\]\.provider)$/.test(
            expectedPath,
          ),
        );
        for (const shapePath of shapePaths) expect(pointers).toContain(pointerOf(shapePath));
      }),
      { numRuns: 200 },
    );
  });
});
