/**
 * @module
 * `AnalyticsError`: a report could not be built (bad option, unreadable source, a gateway API
 * failure), and `ThresholdError`: the report was built but a `--fail-above` / `--fail-below`
 * threshold was crossed. Both say what to do next.
 */
import { StepwiseError } from "../errors/index.ts";

export type AnalyticsErrorCode =
  | "analytics_invalid_option"
  | "analytics_source_unreadable"
  | "analytics_source_invalid"
  | "analytics_logs_api_failed"
  | "analytics_sql_api_failed";

/** A report could not be built. The message names the option or source and the fix. */
export class AnalyticsError extends StepwiseError {
  static override readonly kind: string = "stepwise.AnalyticsError";
  override readonly code: AnalyticsErrorCode;

  constructor(options: { code: AnalyticsErrorCode; message: string; cause?: unknown }) {
    super(options);
    this.name = "AnalyticsError";
    this.code = options.code;
  }

  /**
   * The CLI's exit code: 2 when the command was given something it cannot use (an option, a
   * path, a file that is not events), 1 when an API failed.
   */
  get exitCode(): 1 | 2 {
    return this.code === "analytics_logs_api_failed" || this.code === "analytics_sql_api_failed"
      ? 1
      : 2;
  }
}

/** One crossed threshold, e.g. fallback-rate 0.07 above 0.05. */
export interface ThresholdBreach {
  readonly metric: string;
  readonly direction: "above" | "below";
  readonly value: number | null;
  readonly threshold: number;
  readonly message: string;
}

/** Thrown after the report is printed when at least one threshold was crossed (exit code 1). */
export class ThresholdError extends StepwiseError {
  static override readonly kind: string = "stepwise.ThresholdError";
  override readonly code = "analytics_threshold_crossed";
  readonly breaches: readonly ThresholdBreach[];

  constructor(breaches: readonly ThresholdBreach[]) {
    super({
      code: "analytics_threshold_crossed",
      message: [
        `${breaches.length === 1 ? "1 threshold" : `${breaches.length} thresholds`} crossed:`,
        ...breaches.map((breach) => `  ✖ ${breach.message}`),
      ].join("\n"),
    });
    this.name = "ThresholdError";
    this.breaches = breaches;
  }
}
