/**
 * @module
 * `parseConfig`: validate a config value that came from anywhere (a file, a Worker env var,
 * Pulumi config, a test). Pure; no file system.
 */
import { findConfigProblems } from "./checks.ts";
import { documentIssues, type Locate, locatedIssue, sortByLine } from "./document.ts";
import { ConfigError } from "./errors.ts";
import { configShapeSchema, type StepwiseConfig } from "./schema.ts";

export interface ParseConfigOptions {
  /** Named in error messages, e.g. `Pulumi.dev.yaml`. */
  readonly source?: string;
  /** Maps a config path to a 1-based source line, for error messages. */
  readonly locate?: Locate;
}

/**
 * Validates a config and fills in defaults.
 * @throws {ConfigError} with every problem found, each with its path and fix.
 * @example parseConfig({ accountId: "…", gateways: [...] })
 */
export function parseConfig(input: unknown, options: ParseConfigOptions = {}): StepwiseConfig {
  // The shape and the cross-field checks run separately so that both report in one pass:
  // zod skips refinements once a field is invalid.
  const result = configShapeSchema.safeParse(input);
  const problems = findConfigProblems(result.success ? result.data : input);
  if (result.success && problems.length === 0) return result.data;
  const shapeIssues = result.success
    ? []
    : documentIssues(result.error.issues, { locate: options.locate, unknownFields });
  const crossFieldIssues = problems.map((problem) =>
    locatedIssue(problem.path, problem.message, options.locate),
  );
  throw new ConfigError({
    code: "config_invalid",
    source: options.source ?? "config",
    issues: sortByLine([...shapeIssues, ...crossFieldIssues]),
  });
}

function unknownFields(keys: readonly string[]): string {
  const plural = keys.length > 1 ? "s" : "";
  return `unknown field${plural} ${keys.map((key) => `"${key}"`).join(", ")}: check the spelling against the config reference in README.md`;
}
