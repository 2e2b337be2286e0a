/**
 * @module
 * `ConfigError`: what is wrong with a config, where, and how to fix it. One error carries every
 * problem found, so a user fixes them all in one pass.
 */
import { StepwiseError } from "../errors/index.ts";
import { type DocumentIssue, formatIssues } from "./document.ts";

/**
 * One problem in a config: the path of the bad field, its line, what is wrong and the fix. A
 * problem that only shows once deployed (`config_not_deployable`) carries `severity: "error"`.
 */
export type ConfigIssue = DocumentIssue & { readonly severity?: "error" | "warning" };

/**
 * `config_invalid`: the config breaks the schema. `config_not_deployable`: it is valid, but
 * Cloudflare would not run it as written (see `findings.ts`). The others: the file.
 */
export type ConfigErrorCode =
  | "config_invalid"
  | "config_not_deployable"
  | "config_not_found"
  | "config_unreadable";

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
      message: formatIssues(
        options.source,
        options.code === "config_not_deployable"
          ? "Stepwise config (it would not work on Cloudflare)"
          : "Stepwise config",
        options.issues,
      ),
      cause: options.cause,
    });
    this.name = "ConfigError";
    this.code = options.code;
    this.source = options.source;
    this.issues = options.issues;
  }
}
