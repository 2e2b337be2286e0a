/**
 * @module
 * `ConfigError`: what is wrong with a config, where, and how to fix it. One error carries every
 * problem found, so a user fixes them all in one pass.
 */
import { StepwiseError } from "../errors/index.ts";
import { type DocumentIssue, formatIssues } from "./document.ts";

/** One problem in a config: the path of the bad field, its line, what is wrong and the fix. */
export type ConfigIssue = DocumentIssue;

export type ConfigErrorCode = "config_invalid" | "config_not_found" | "config_unreadable";

export class ConfigError extends StepwiseError {
  static override readonly kind: string = "stepwise.ConfigError";
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
      message: formatIssues(options.source, "Stepwise config", options.issues),
      cause: options.cause,
    });
    this.name = "ConfigError";
    this.code = options.code;
    this.source = options.source;
    this.issues = options.issues;
  }
}
