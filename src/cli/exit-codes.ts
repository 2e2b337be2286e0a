/**
 * @module
 * What every `stepwise` command's exit code means, in one place: 0 it did what was asked, 1 a
 * check failed (an invalid config or scenario, a crossed threshold, a broken invariant, a lost
 * event, a rotation the Worker refused), 2 the command line was wrong (an unknown option, a bad
 * value, a file that is not there); a usage error ends with the command's help hint. Scripts and
 * CI can tell "fix the config" from "fix the command".
 */
import { StepwiseError } from "../errors/index.ts";

export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

/** A command line that cannot work: what is wrong and what to write instead. Exit code 2. */
export class UsageError extends StepwiseError {
  static override readonly kind: string = "stepwise.UsageError";
  constructor(message: string, cause?: unknown) {
    super({ code: "usage_invalid", message, cause });
    this.name = "UsageError";
  }
}

/**
 * Error codes, from modules whose errors do not say their exit code themselves, that mean the
 * command line was wrong rather than that a check failed: a bad option value, or a file or name
 * given on the command line that does not exist.
 */
const usageErrorCodes: ReadonlySet<string> = new Set([
  "usage_invalid", // UsageError
  "dev_invalid_option",
  "chaos_option_invalid",
  "chaos_route_missing",
  "demo_route_missing",
  "config_not_found",
  "scenario_not_found",
  "fault_schedule_not_found",
  "fault_flag_invalid",
  "optional_package_missing", // a package the command needs is not installed
]);

/**
 * 2 for a usage error, 1 for any other Stepwise error (a failed check). An error that knows its
 * exit code says so with an `exitCode` of 1 or 2 (`AnalyticsError` does).
 */
export function exitCodeOf(error: StepwiseError): 1 | 2 {
  const own = (error as { exitCode?: unknown }).exitCode;
  if (own === exitCodes.failed || own === exitCodes.usage) return own;
  return usageErrorCodes.has(error.code) ? exitCodes.usage : exitCodes.failed;
}

/** True when the error is a usage error (exit code 2). */
export function isUsageError(error: unknown): boolean {
  return StepwiseError.isInstance(error) && exitCodeOf(error) === exitCodes.usage;
}

/** The help text's exit code paragraph; `failed` says what makes this command exit 1. */
export function exitCodesHelp(failed: string): string {
  return `\nExit codes: 0 ok · 1 ${failed} · 2 usage error (unknown option, bad value, missing file)`;
}
