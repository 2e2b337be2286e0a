/**
 * @module
 * `InfraError`: the Pulumi program cannot deploy what it was given (a missing Worker bundle, a
 * secret the deploy needs, a route graph the provider cannot express). Config problems are
 * `ConfigError`s from `src/config`, with the same messages as `stepwise validate`.
 */
import { StepwiseError } from "../errors/index.ts";

export type InfraErrorCode =
  | "worker_bundle_missing"
  | "wrangler_config_unreadable"
  | "route_not_expressible"
  | "worker_cron_unsupported"
  | "package_files_missing"
  | "optional_package_missing";

export class InfraError extends StepwiseError {
  static override readonly kind: string = "stepwise.InfraError";
  override readonly code: InfraErrorCode;

  constructor(options: { code: InfraErrorCode; message: string; cause?: unknown }) {
    super(options);
    this.name = "InfraError";
    this.code = options.code;
  }
}
