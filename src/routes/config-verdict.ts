/**
 * @module
 * `judgeConfig`: the one decision on a config, which `stepwise validate` prints and the Pulumi
 * program's preflight enforces. It runs every check in one pass — the schema, the cross-field
 * rules, routes and policies, what Cloudflare would not run (dynamic routes), the secrets a
 * deploy needs, the companion Worker view's size and model retirement — and returns every
 * problem once, with its line and fix. The checks that need a parsed config run on the valid
 * part of an invalid one (`salvageConfig`), so fixing one mistake never uncovers another.
 */
import {
  findMissingSecrets,
  type PresentSecrets,
  secretsInConfig,
} from "../config/deploy-secrets.ts";
import { type DocumentIssue, type Locate, mergeIssues, sortByLine } from "../config/document.ts";
import { type ConfigFinding, type LocatedFinding, locateFindings } from "../config/findings.ts";
import { findInputIssues } from "../config/parse.ts";
import { salvageConfig } from "../config/salvage.ts";
import type { StepwiseConfig } from "../config/schema.ts";
import { findConfigFindings } from "./config-findings.ts";

export interface JudgeConfigOptions {
  /** Maps a config path to its line in the file. */
  readonly locate?: Locate;
  /** How the source writes a top-level key (`stepwise:models` in a stack file). */
  readonly topLevelKey?: (key: string) => string;
  /** Epoch ms that retirement dates are compared with. Default `Date.now()`. */
  readonly now?: number;
  /**
   * Which deploy secrets are set. Default: the config's own (`secure:` values in a stack file).
   * The Pulumi program passes the stack's secrets.
   */
  readonly secrets?: PresentSecrets;
}

/** Every problem of a config and, when its shape is valid, the parsed config. */
export interface ConfigVerdict {
  /** The parsed config; undefined when the schema rejects the input. */
  readonly config: StepwiseConfig | undefined;
  /**
   * `config_invalid` when the schema or a cross-field rule rejects it; `config_not_deployable`
   * when it is valid but would not deploy or run; undefined when nothing is an error.
   */
  readonly code: "config_invalid" | "config_not_deployable" | undefined;
  /** Errors (the config must not be deployed), in file order. */
  readonly errors: readonly LocatedFinding[];
  /** Warnings (it deploys, and behaves differently from what it says), in file order. */
  readonly warnings: readonly LocatedFinding[];
}

/** Judges a config value (a file's Stepwise keys, the stack's config, a parsed config). */
export function judgeConfig(input: unknown, options: JudgeConfigOptions = {}): ConfigVerdict {
  const { config, shapeIssues, crossFieldIssues } = findInputIssues(input, {
    ...(options.locate ? { locate: options.locate } : {}),
    ...(options.topLevelKey ? { topLevelKey: options.topLevelKey } : {}),
  });
  const salvaged = salvageConfig(input);
  const findings: ConfigFinding[] = salvaged
    ? [
        ...findConfigFindings(
          salvaged.config,
          options.now === undefined ? {} : { now: options.now },
        ),
        ...findMissingSecrets(salvaged.config, options.secrets ?? secretsInConfig(salvaged.config)),
      ].map((finding) => ({
        ...finding,
        path: salvaged.toOriginal(finding.path),
        ...(finding.lineOf ? { lineOf: salvaged.toOriginal(finding.lineOf) } : {}),
      }))
    : [];
  const asError = (issue: DocumentIssue): LocatedFinding => ({ severity: "error", ...issue });
  const located = locateFindings(findings, options.locate);
  // A finding that is an error at a field a cross-field rule also flags says the same thing
  // more precisely (a dynamic route's provider with no key: store it in the gateway).
  const flagged = new Set(
    located.filter((finding) => finding.severity === "error").map((finding) => finding.path),
  );
  const crossField = crossFieldIssues.filter((issue) => !flagged.has(issue.path));
  const merged = mergeIssues(shapeIssues.map(asError), [
    ...crossField.map(asError),
    ...located,
  ]) as LocatedFinding[];
  const problems = onceEach(merged);
  const errors = problems.filter((problem) => problem.severity === "error");
  const invalid = shapeIssues.length > 0 || crossField.length > 0;
  return {
    config,
    code: invalid ? "config_invalid" : errors.length > 0 ? "config_not_deployable" : undefined,
    errors: sortByLine(errors) as LocatedFinding[],
    warnings: problems.filter((problem) => problem.severity === "warning"),
  };
}

/** Drops repeats: the same message at the same path is one problem. */
function onceEach(problems: readonly LocatedFinding[]): LocatedFinding[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.severity}\u0000${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
