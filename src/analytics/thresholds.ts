/**
 * @module
 * Alerting for CI and cron: `--fail-above fallback-rate=0.05`, `--fail-below availability=0.99`.
 * A threshold is checked against the totals of the report's window (narrow the scope with
 * `--gateway` / `--route`). Rates take fractions or percentages (`0.99` or `99%`). A metric with
 * no value (no calls in the window) counts as crossed: silence must not pass for health.
 */
import { AnalyticsError, type ThresholdBreach } from "./errors.ts";
import type { Figures } from "./figures.ts";

/** Metric names accepted by `--fail-above` / `--fail-below`, and the figure each reads. */
export const thresholdMetrics = {
  "fallback-rate": "fallbackRate",
  availability: "availability",
  "success-rate": "successRate",
  "cache-hit-rate": "cacheHitRate",
  "p50-latency-ms": "p50LatencyMs",
  "p95-latency-ms": "p95LatencyMs",
  "p99-latency-ms": "p99LatencyMs",
  cost: "cost",
  calls: "calls",
  "tokens-in": "tokensIn",
  "tokens-out": "tokensOut",
} as const satisfies Record<string, keyof Figures>;

export type ThresholdMetric = keyof typeof thresholdMetrics;

const rateMetrics = new Set<ThresholdMetric>([
  "fallback-rate",
  "availability",
  "success-rate",
  "cache-hit-rate",
]);

/** One parsed threshold. */
export interface Threshold {
  readonly metric: ThresholdMetric;
  readonly direction: "above" | "below";
  readonly value: number;
}

/** Parses `metric=value` given to `--fail-above` or `--fail-below`. */
export function parseThreshold(text: string, direction: "above" | "below"): Threshold {
  const option = `--fail-${direction}`;
  const [name, raw, ...rest] = text.split("=");
  const metric = (name ?? "").trim();
  if (!(metric in thresholdMetrics) || raw === undefined || rest.length > 0) {
    throw new AnalyticsError({
      code: "analytics_invalid_option",
      message:
        `${option} "${text}" is not metric=value. Metrics: ${Object.keys(thresholdMetrics).join(", ")}; ` +
        `e.g. ${option} ${direction === "above" ? "fallback-rate=0.05" : "availability=0.99"}.`,
    });
  }
  const typed = metric as ThresholdMetric;
  const percent = raw.trim().endsWith("%");
  const value = Number(percent ? raw.trim().slice(0, -1) : raw.trim()) / (percent ? 100 : 1);
  if (raw.trim() === "" || !Number.isFinite(value) || (percent && !rateMetrics.has(typed))) {
    throw new AnalyticsError({
      code: "analytics_invalid_option",
      message: `${option} ${metric}: "${raw}" is not a number${rateMetrics.has(typed) ? " (use a fraction like 0.05 or a percentage like 5%)" : ""}.`,
    });
  }
  if (rateMetrics.has(typed) && (value < 0 || value > 1)) {
    throw new AnalyticsError({
      code: "analytics_invalid_option",
      message: `${option} ${metric}=${raw}: a rate lies between 0 and 1 (or 0% and 100%).`,
    });
  }
  return { metric: typed, direction, value };
}

/** The thresholds `totals` crosses, each with a message naming the metric, value and threshold. */
export function checkThresholds(
  thresholds: readonly Threshold[],
  totals: Figures,
): ThresholdBreach[] {
  const breaches: ThresholdBreach[] = [];
  for (const threshold of thresholds) {
    const value = totals[thresholdMetrics[threshold.metric]];
    const crossed =
      value === null ||
      (threshold.direction === "above" ? value > threshold.value : value < threshold.value);
    if (!crossed) continue;
    const flag = `--fail-${threshold.direction} ${threshold.metric}=${threshold.value}`;
    const message =
      value === null
        ? `${threshold.metric} has no value (no calls in the window), so it cannot be checked (${flag})`
        : `${threshold.metric} ${formatMetric(threshold.metric, value)} is ${threshold.direction} the threshold ${formatMetric(threshold.metric, threshold.value)} (${flag})`;
    breaches.push({
      metric: threshold.metric,
      direction: threshold.direction,
      value,
      threshold: threshold.value,
      message,
    });
  }
  return breaches;
}

function formatMetric(metric: ThresholdMetric, value: number): string {
  if (rateMetrics.has(metric)) return `${Number((value * 100).toFixed(2))}%`;
  return String(Math.round(value * 1e4) / 1e4);
}
