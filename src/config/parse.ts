/**
 * @module
 * `parseConfig`: validate a config value that came from anywhere (a file, a Worker env var,
 * Pulumi config, a test). Pure; no file system.
 */
import { findConfigProblems } from "./checks.ts";
import { documentIssues, type Locate, locatedIssue, mergeIssues } from "./document.ts";
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

/**
 * Validates a config and fills in defaults.
 * @throws {ConfigError} with every problem found, each with its path and fix.
 * @example parseConfig({ accountId: "…", gateways: [...] })
 */
export function parseConfig(input: unknown, options: ParseConfigOptions = {}): StepwiseConfig {
  // The shape and the cross-field checks run separately so that both report in one pass:
  // zod skips refinements once a field is invalid.
  const result = configShapeSchema.safeParse(input, { reportInput: true });
  const problems = [
    ...findConfigProblems(result.success ? result.data : input),
    ...findPriceTypos(input),
  ];
  if (result.success && problems.length === 0) return result.data;
  const shapeIssues = result.success
    ? []
    : documentIssues(result.error.issues, {
        locate: options.locate,
        schema: configShapeSchema,
        input,
        namesAt: providerNamesAt,
        ...(options.topLevelKey ? { topLevelKey: options.topLevelKey } : {}),
      });
  const crossFieldIssues = problems.map((problem) =>
    locatedIssue(problem.path, problem.message, options.locate),
  );
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
