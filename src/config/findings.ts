/**
 * @module
 * Findings about a valid config: what would fail or behave differently once deployed to
 * Cloudflare. An `error` stops `stepwise validate` (exit 1) and `pulumi up`; a `warning` is printed
 * and the command succeeds. Checks that produce findings live with the code that knows the rule
 * (e.g. `src/routes` for dynamic routes); this module holds their shape and presentation.
 */
import { type DocumentIssue, formatPath, type Locate, sortByLine } from "./document.ts";
import { ConfigError } from "./errors.ts";

export type FindingSeverity = "error" | "warning";

/** One finding at a config path. */
export interface ConfigFinding {
  readonly severity: FindingSeverity;
  readonly path: readonly PropertyKey[];
  /** What is wrong and how to fix it. */
  readonly message: string;
  /**
   * Where to point when the path is not in the file (a secret not set yet): the field that needs
   * it. Default: the path.
   */
  readonly lineOf?: readonly PropertyKey[];
}

/** A finding located in its file, as printed and as `stepwise validate --json` lists it. */
export interface LocatedFinding extends DocumentIssue {
  readonly severity: FindingSeverity;
}

/** Findings with dotted paths and lines, in file order. */
export function locateFindings(
  findings: readonly ConfigFinding[],
  locate?: Locate,
): LocatedFinding[] {
  const located = findings.map((finding): LocatedFinding => {
    const line = locate?.(finding.lineOf ?? finding.path);
    return {
      severity: finding.severity,
      path: formatPath(finding.path),
      message: finding.message,
      ...(line === undefined ? {} : { line }),
    };
  });
  return sortByLine(located) as LocatedFinding[];
}

/** `⚠ path (line n): message` lines, one a finding. */
export function formatFindingLines(findings: readonly LocatedFinding[]): string[] {
  return findings.map((finding) => {
    const where = finding.path === "" ? "(top level)" : finding.path;
    const at = finding.line === undefined ? "" : ` (line ${finding.line})`;
    const mark = finding.severity === "error" ? "✖" : "⚠";
    return `  ${mark} ${where}${at}: ${finding.message}`;
  });
}

/**
 * Throws the error findings as one `ConfigError` (code `config_not_deployable`); returns the
 * warnings.
 * @throws {ConfigError} when any finding is an error.
 */
export function throwOnErrorFindings(
  findings: readonly LocatedFinding[],
  source: string,
): LocatedFinding[] {
  const errors = findings.filter((finding) => finding.severity === "error");
  if (errors.length > 0) {
    throw new ConfigError({ code: "config_not_deployable", source, issues: errors });
  }
  return findings.filter((finding) => finding.severity === "warning");
}
