/**
 * @module
 * A whole report from one source in one pass: the window's aggregate, the optional comparison
 * window, the source's tally (malformed records) and the threshold checks.
 */
import { type Aggregate, type AggregateOptions, StepRateAggregator } from "./aggregate.ts";
import { type Comparison, compareAggregates } from "./compare.ts";
import type { ThresholdBreach } from "./errors.ts";
import { type Explanation, type Pricing, withPricing } from "./explain.ts";
import type { MalformedRecord, ReportSource, SourceKind } from "./sources/types.ts";
import { checkThresholds, type Threshold } from "./thresholds.ts";
import type { TimeWindow } from "./window.ts";

/** Options of `buildReport`. */
export interface ReportOptions extends AggregateOptions {
  /** The baseline window to compare with, if any. */
  compareWindow?: TimeWindow | null;
  /** Thresholds to check on the totals. */
  thresholds?: readonly Threshold[];
  /** Clock for `generatedAt` (default `Date.now`, resolved at call time). */
  now?: () => number;
  /** Prices and each route's primary (from a config), for the cost of fallback. */
  pricing?: Pricing | null;
}

/** A complete step-rate report; every renderer takes this. */
export interface Report extends Omit<Aggregate, "explanation"> {
  generatedAt: string;
  source: {
    kind: SourceKind;
    name: string;
    records: number;
    malformed: number;
    malformedSamples: MalformedRecord[];
    /** Bytes fetched and requests made, for sources that query an API. */
    bytesFetched?: number;
    requests?: number;
  };
  comparison: Comparison | null;
  thresholds: { checked: Threshold[]; breaches: ThresholdBreach[] };
  /** Failures per step, cost of fallback, served models over time; null when not recorded. */
  explanation: Explanation | null;
}

/**
 * Builds the report: reads every event of an event source once, or asks an aggregating source
 * for the window's figures (and the baseline's).
 */
export async function buildReport(
  source: ReportSource,
  options: ReportOptions = {},
): Promise<Report> {
  const baselineOptions = options.compareWindow
    ? { ...options, window: options.compareWindow, series: false }
    : null;
  let aggregate: Aggregate;
  let baselineAggregate: Aggregate | null = null;
  if ("aggregate" in source) {
    aggregate = await source.aggregate(options);
    if (baselineOptions) baselineAggregate = await source.aggregate(baselineOptions);
  } else {
    const current = new StepRateAggregator(options);
    const baseline = baselineOptions ? new StepRateAggregator(baselineOptions) : null;
    if (source.eventBatches) {
      for await (const batch of source.eventBatches()) {
        for (const event of batch) {
          current.add(event);
          baseline?.add(event);
        }
      }
    } else {
      for await (const event of source.events()) {
        current.add(event);
        baseline?.add(event);
      }
    }
    aggregate = current.finish();
    baselineAggregate = baseline?.finish() ?? null;
  }
  const thresholds = [...(options.thresholds ?? [])];
  const { explanation } = aggregate;
  const pricing = options.pricing ?? null;
  return {
    generatedAt: new Date((options.now ?? Date.now)()).toISOString(),
    source: {
      kind: source.kind,
      name: source.name,
      records: source.stats.records,
      malformed: source.stats.malformed,
      malformedSamples: [...source.stats.malformedSamples],
      ...(source.stats.bytesFetched === undefined
        ? {}
        : { bytesFetched: source.stats.bytesFetched, requests: source.stats.requests ?? 0 }),
    },
    ...aggregate,
    comparison: baselineAggregate ? compareAggregates(aggregate, baselineAggregate) : null,
    thresholds: { checked: thresholds, breaches: checkThresholds(thresholds, aggregate.totals) },
    explanation:
      explanation === undefined
        ? null
        : pricing === null
          ? explanation
          : withPricing(explanation, pricing),
  };
}
