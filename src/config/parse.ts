/**
 * @module
 * `parseConfig`: validate a config value that came from anywhere (a file, a Worker env var,
 * Pulumi config, a test). Pure; no file system.
 */
import type { z } from "zod";
import { findConfigProblems } from "./checks.ts";
import { ConfigError, type ConfigIssue, formatPath } from "./errors.ts";
import { configShapeSchema, type StepwiseConfig } from "./schema.ts";

export interface ParseConfigOptions {
  /** Named in error messages, e.g. `Pulumi.dev.yaml`. */
  readonly source?: string;
  /** Maps a config path to a 1-based source line, for error messages. */
  readonly locate?: (path: readonly PropertyKey[]) => number | undefined;
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
    : result.error.issues.map((issue) => toConfigIssue(issue, options.locate));
  const crossFieldIssues = problems.map((problem) =>
    toConfigIssue(
      { code: "custom", message: problem.message, path: problem.path, input },
      options.locate,
    ),
  );
  throw new ConfigError({
    code: "config_invalid",
    source: options.source ?? "config",
    issues: sortByLine([...shapeIssues, ...crossFieldIssues]),
  });
}

function toConfigIssue(
  issue: z.core.$ZodIssue | z.core.$ZodIssueCustom,
  locate: ParseConfigOptions["locate"],
): ConfigIssue {
  const path = issue.path as PropertyKey[];
  const line = locate?.(path);
  let message = issue.message;
  if (issue.code === "unrecognized_keys") {
    message = `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => `"${key}"`).join(", ")}: check the spelling against the config reference in README.md`;
  }
  return line === undefined
    ? { path: formatPath(path), message }
    : { path: formatPath(path), message, line };
}

/** Issues in file order, so they read top to bottom alongside the file; unlocated ones last. */
function sortByLine(issues: ConfigIssue[]): ConfigIssue[] {
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort(
      (a, b) =>
        (a.issue.line ?? Number.MAX_SAFE_INTEGER) - (b.issue.line ?? Number.MAX_SAFE_INTEGER) ||
        a.index - b.index,
    )
    .map(({ issue }) => issue);
}
