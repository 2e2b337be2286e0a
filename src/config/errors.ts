/**
 * @module
 * `ConfigError`: what is wrong with a config, where, and how to fix it. One error carries every
 * problem found, so a user fixes them all in one pass.
 */
import { StepwiseError } from "../errors/index.ts";

export interface ConfigIssue {
  /** Dotted path of the bad field, e.g. `gateways[0].cache.ttl`. */
  readonly path: string;
  /** What is wrong and how to fix it. */
  readonly message: string;
  /** 1-based line in the source file, when known. */
  readonly line?: number;
}

export type ConfigErrorCode = "config_invalid" | "config_not_found" | "config_unreadable";

export class ConfigError extends StepwiseError {
  override readonly code: ConfigErrorCode;
  readonly source: string;
  readonly issues: readonly ConfigIssue[];

  constructor(options: {
    code: ConfigErrorCode;
    source: string;
    issues: readonly ConfigIssue[];
    cause?: unknown;
  }) {
    super({
      code: options.code,
      message: formatIssues(options.source, options.issues),
      cause: options.cause,
    });
    this.name = "ConfigError";
    this.code = options.code;
    this.source = options.source;
    this.issues = options.issues;
  }
}

function formatIssues(source: string, issues: readonly ConfigIssue[]): string {
  const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
  const lines = issues.map((issue) => {
    const where = issue.path === "" ? "(top level)" : issue.path;
    const at = issue.line === undefined ? "" : ` (line ${issue.line})`;
    return `  ✖ ${where}${at}: ${issue.message}`;
  });
  return [`${source}: ${count} in the Stepwise config`, ...lines].join("\n");
}

/** `gateways[0].routes.default.steps[1]` from `["gateways", 0, "routes", "default", "steps", 1]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, segment) => {
    if (typeof segment === "number") return `${text}[${segment}]`;
    const name = String(segment);
    const safe = /^[A-Za-z_$][\w$-]*$/.test(name) ? name : JSON.stringify(name);
    return text === "" ? safe : `${text}.${safe}`;
  }, "");
}
