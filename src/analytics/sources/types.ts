/**
 * @module
 * What every source of events provides: a name, a one-shot stream of `CallEvent`s, and a
 * running tally of records read and records rejected (malformed lines are counted, never fatal).
 */
import type { Aggregate, AggregateOptions, StepRateAggregator } from "../aggregate.ts";
import type { AnalyticsEvent } from "../dimensions.ts";

/** Where events come from. */
export type SourceKind = "events" | "logs" | "analytics-engine";

/** One rejected record: its 1-based line (or record) number and why. */
export interface MalformedRecord {
  readonly line: number;
  readonly reason: string;
}

/** Counts kept while a source is read. */
export interface SourceStats {
  /** Records read (lines, log records or rows), malformed ones included, blank lines not. */
  records: number;
  /** Records rejected. */
  malformed: number;
  /** The first few rejected records. */
  malformedSamples: MalformedRecord[];
  /** Bytes fetched from an API and the requests made, for sources that query one. */
  bytesFetched?: number;
  requests?: number;
}

/** A stream of events; `events()` may be iterated once. */
export interface EventSource {
  readonly kind: SourceKind;
  /** Human-readable origin, e.g. `events.jsonl`, `stdin`, `gateway logs chat-prod`. */
  readonly name: string;
  readonly stats: SourceStats;
  events(): AsyncIterable<AnalyticsEvent>;
  /** The same events in arrays (one per chunk read), when the source can: cheaper to iterate. */
  eventBatches?(): AsyncIterable<readonly AnalyticsEvent[]>;
  /**
   * Every event counted into one aggregator per entry of `options`, by several threads at once
   * when the source can (a large file); null when it declines (then read `eventBatches`).
   */
  aggregateAll?(options: readonly AggregateOptions[]): Promise<StepRateAggregator[] | null>;
}

/**
 * A source that aggregates where the data lives (the Analytics Engine SQL API) and hands over
 * the figures, not the events. `aggregate` may be called more than once (window, baseline).
 */
export interface AggregatingSource {
  readonly kind: SourceKind;
  readonly name: string;
  readonly stats: SourceStats;
  aggregate(options: AggregateOptions): Promise<Aggregate>;
}

/** Either kind of source. */
export type ReportSource = EventSource | AggregatingSource;

/** How many malformed records are kept as samples by default. */
export const defaultMalformedSamples = 5;

/** Tally shared by the sources. */
export class SourceTally implements SourceStats {
  records = 0;
  malformed = 0;
  readonly malformedSamples: MalformedRecord[] = [];
  bytesFetched?: number;
  requests?: number;

  constructor(readonly sampleLimit: number = defaultMalformedSamples) {}

  /** Records a rejected record. */
  reject(line: number, reason: string): void {
    this.malformed += 1;
    if (this.malformedSamples.length < this.sampleLimit)
      this.malformedSamples.push({ line, reason });
  }
}
