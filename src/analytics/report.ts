/**
 * @module
 * A whole report from one source in one pass: the window's aggregate, the optional comparison
 * window, the source's tally (malformed records) and the threshold checks.
 */
import { type Aggregate, type AggregateOptions, StepRateAggregator } from "./aggregate.ts";
import { type Comparison, compareAggregates } from "./compare.ts";
import type { ThresholdBreach } from "./errors.ts";
import type { EventSource, MalformedRecord, SourceKind } from "./sources/types.ts";
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
}

/** A complete step-rate report; every renderer takes this. */
export interface Report extends Aggregate {
  generatedAt: string;
  source: {
    kind: SourceKind;
    name: string;
    records: number;
    malformed: number;
    malformedSamples: MalformedRecord[];
  };
  comparison: Comparison | null;
  thresholds: { checked: Threshold[]; breaches: ThresholdBreach[] };
}

/** Reads every event of `source` once and builds the report. */
export async function buildReport(
  source: EventSource,
  options: ReportOptions = {},
): Promise<Report> {
  const current = new StepRateAggregator(options);
  const baseline = options.compareWindow
    ? new StepRateAggregator({ ...options, window: options.compareWindow, series: false })
    : null;
  for await (const event of source.events()) {
    current.add(event);
    baseline?.add(event);
  }
  const aggregate = current.finish();
  const thresholds = [...(options.thresholds ?? [])];
  return {
    generatedAt: new Date((options.now ?? Date.now)()).toISOString(),
    source: {
      kind: source.kind,
      name: source.name,
      records: source.stats.records,
      malformed: source.stats.malformed,
      malformedSamples: [...source.stats.malformedSamples],
    },
    ...aggregate,
    comparison: baseline ? compareAggregates(aggregate, baseline.finish()) : null,
    thresholds: { checked: thresholds, breaches: checkThresholds(thresholds, aggregate.totals) },
  };
}
