/**
 * @module
 * `parseConfig`: validate a config value that came from anywhere (a file, a Worker env var,
 * Pulumi config, a test). Pure; no file system.
 */
import { findConfigProblems } from "./checks.ts";
import {
  type DocumentIssue,
  documentIssues,
  type Locate,
  locatedIssue,
  mergeIssues,
} from "./document.ts";
import { ConfigError } from "./errors.ts";
import { findPriceTypos } from "./price-typos.ts";
import { builtInProviderSlugs, configShapeSchema, type StepwiseConfig } from "./schema.ts";

export interface ParseConfigOptions {
  /** Named in error messages, e.g. `Pulumi.dev.yaml`. */
  readonly source?: string;
  /** Maps a config path to a 1-based source line, for error messages. */
  readonly locate?: Locate;
  /** How the source writes a top-level key, e.g. `stepwise:models` in a Pulumi stack file. */
  readonly topLevelKey?: (key: string) => string;
}

/** What the schema and the cross-field checks say about an input. */
export interface InputIssues {
  /** The parsed config, when the shape is valid (cross-field problems may remain). */
  readonly config: StepwiseConfig | undefined;
  /** Schema problems: a field of the wrong type, an unknown field, a value out of range. */
  readonly shapeIssues: readonly DocumentIssue[];
  /** Problems spanning fields (`checks.ts`) and misspelt price fields. */
  readonly crossFieldIssues: readonly DocumentIssue[];
}

/**
 * The schema's and the cross-field checks' problems, both in one pass (zod skips refinements once
 * a field is invalid, so the cross-field checks run apart, on the raw input when need be).
 */
export function findInputIssues(input: unknown, options: ParseConfigOptions = {}): InputIssues {
  const result = configShapeSchema.safeParse(input, { reportInput: true });
  const problems = [
    ...findConfigProblems(result.success ? result.data : input),
    ...findPriceTypos(input),
  ];
  const shapeIssues = result.success
    ? []
    : documentIssues(result.error.issues, {
        locate: options.locate,
        schema: configShapeSchema,
        input,
        namesAt: providerNamesAt,
        ...(options.topLevelKey ? { topLevelKey: options.topLevelKey } : {}),
      });
  return {
    config: result.success ? result.data : undefined,
    shapeIssues,
    crossFieldIssues: problems.map((problem) =>
      locatedIssue(problem.path, problem.message, options.locate),
    ),
  };
}

/**
 * Validates a config and fills in defaults.
 * @throws {ConfigError} with every problem found, each with its path and fix.
 * @example parseConfig({ accountId: "…", gateways: [...] })
 */
export function parseConfig(input: unknown, options: ParseConfigOptions = {}): StepwiseConfig {
  const { config, shapeIssues, crossFieldIssues } = findInputIssues(input, options);
  if (config !== undefined && crossFieldIssues.length === 0) return config;
  throw new ConfigError({
    code: "config_invalid",
    source: options.source ?? "config",
    issues: mergeIssues(shapeIssues, crossFieldIssues),
  });
}

/** Provider slugs wherever the config names a provider, for "did you mean". */
function providerNamesAt(path: readonly PropertyKey[]): readonly string[] | undefined {
  const last = path.at(-1);
  const parent = path.at(-2);
  return last === "provider" || parent === "providers" ? builtInProviderSlugs : undefined;
}
