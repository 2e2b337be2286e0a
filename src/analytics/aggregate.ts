/**
 * @module
 * The streaming step-rate aggregation: feed events one by one, get every figure per group, per
 * route, overall and per time bucket. Memory is O(groups × buckets): each group holds a few
 * counters and a bounded latency sketch, never the events.
 */
import type { CallEvent } from "../client/event.ts";
import {
  type AnalyticsEvent,
  allDimensions,
  compareKeys,
  type Dimension,
  type GroupKey,
  orderDimensions,
} from "./dimensions.ts";
import { eventTime } from "./event-time.ts";
import { type Explanation, explanationOf } from "./explain.ts";
import { ExplainTally } from "./explain-tally.ts";
import { type Figures, GroupStats } from "./figures.ts";
import { type Group, GroupIndex, project } from "./group-index.ts";
import { type Steering, steeringOf } from "./steering.ts";
import { SteeringTally } from "./steering-tally.ts";
import {
  autoBucketSizes,
  bucketStart,
  chooseAutoBucket,
  formatDuration,
  inWindow,
  type TimeWindow,
} from "./window.ts";

export {
  type AnalyticsEvent,
  allDimensions,
  compareKeys,
  type Dimension,
  type GroupKey,
} from "./dimensions.ts";

/** One row: a group and its figures. */
export interface GroupRow {
  key: GroupKey;
  figures: Figures;
}

/** One time bucket of the series. */
export interface SeriesPoint {
  /** ISO start (inclusive) and end (exclusive) of the bucket. */
  start: string;
  end: string;
  /** Figures of all calls in the bucket; `share` is the bucket's share of the window. */
  figures: Figures;
  /** Per-group rows in the bucket (`share` within the bucket); only with an explicit bucket. */
  groups?: GroupRow[];
}

/** Everything one pass over the events produced. */
export interface Aggregate {
  window: { since: string | null; until: string | null };
  /** Times of the first and last counted events. */
  firstEvent: string | null;
  lastEvent: string | null;
  dimensions: Dimension[];
  /** Events counted, and events skipped for lying outside the window or the filters. */
  counted: number;
  outsideWindow: number;
  filteredOut: number;
  totals: Figures;
  /** Per gateway and route (availability and step shares per route). */
  routes: GroupRow[];
  /** Per `dimensions` group. */
  groups: GroupRow[];
  series: { bucket: string; bucketMs: number; auto: boolean; points: SeriesPoint[] };
  /** Skipped and demoted steps and hedges per route, as the client's events list them. */
  steering: Steering;
  /**
   * Per route: each step's calls and failures by reason, the cost of fallback, and the calls per
   * serving provider/model over time (`explain.ts`); absent from a source that aggregates itself.
   */
  explanation?: Explanation;
}

export interface AggregateOptions {
  /** Group by these (default: gateway, route, step, provider, model). */
  dimensions?: readonly Dimension[];
  /** Only count events in this window (default: all). */
  window?: TimeWindow;
  /** Explicit bucket size in ms: per-bucket group rows too. Default: automatic, totals only. */
  bucketMs?: number | null;
  /** Only count these gateways / routes (empty or absent: all). */
  gateways?: readonly string[];
  routes?: readonly string[];
  /** Keep no time series (used for the baseline of a comparison). */
  series?: boolean;
}

/**
 * While reading, the automatic series coarsens once it holds more buckets than this; at the end
 * it settles on the size {@link chooseAutoBucket} picks for the events' span (≤ 120 buckets).
 */
export const maxStreamingBuckets = 480;

interface Bucket {
  /** All calls of the bucket (automatic series), or null (explicit: merged from `groups`). */
  totals: GroupStats | null;
  groups: GroupIndex | null;
}

/**
 * One-pass aggregator. Call `add` for each event, then `finish` once. Each event is added to one
 * group of the finest grouping needed (the dimensions plus gateway and route) and to one time
 * bucket; groups, routes and totals are merged from the fine groups at the end.
 */
export class StepRateAggregator {
  readonly #dimensions: Dimension[];
  readonly #window: TimeWindow;
  readonly #gateways: ReadonlySet<string> | null;
  readonly #routes: ReadonlySet<string> | null;
  readonly #explicitBucket: boolean;
  readonly #keepSeries: boolean;
  #bucketMs: number;
  readonly #fine: GroupIndex;
  readonly #steering = new SteeringTally();
  readonly #explain = new ExplainTally();
  #buckets = new Map<number, Bucket>();
  #first: number | null = null;
  #last: number | null = null;
  #outsideWindow = 0;
  #filteredOut = 0;

  constructor(options: AggregateOptions = {}) {
    this.#dimensions = orderDimensions(options.dimensions ?? allDimensions);
    this.#fine = new GroupIndex(orderDimensions([...this.#dimensions, "gateway", "route"]));
    this.#window = options.window ?? { since: null, until: null };
    this.#gateways = options.gateways?.length ? new Set(options.gateways) : null;
    this.#routes = options.routes?.length ? new Set(options.routes) : null;
    this.#explicitBucket = options.bucketMs != null;
    const { since, until } = this.#window;
    // A closed window fixes the automatic size up front; otherwise the span read decides.
    this.#bucketMs =
      options.bucketMs ??
      (since !== null && until !== null
        ? chooseAutoBucket(since, until - 1)
        : (autoBucketSizes[0] ?? 1_000));
    this.#keepSeries = options.series ?? true;
  }

  /** Counts one event; says whether it was counted or why not. */
  add(event: AnalyticsEvent): "counted" | "outside_window" | "filtered" {
    if (this.#gateways && !this.#gateways.has(event.gateway)) return this.#skip("filtered");
    if (this.#routes && !this.#routes.has(event.route)) return this.#skip("filtered");
    const time = eventTime(event.time) ?? Date.parse(event.time);
    if (!inWindow(this.#window, time)) return this.#skip("outside_window");
    if (this.#first === null || time < this.#first) this.#first = time;
    if (this.#last === null || time > this.#last) this.#last = time;
    this.#fine.of(event).add(event);
    this.#steering.add(event);
    if (this.#keepSeries) this.#addToBucket(time, event);
    this.#explain.add(event, time, this.#keepSeries ? this.#bucketMs : 0);
    return "counted";
  }

  /** The figures. The aggregator should not be used afterwards. */
  finish(): Aggregate {
    const fine = this.#fine.groups;
    const totals = project(fine, [])[0]?.stats ?? new GroupStats();
    const total = totals.calls;
    if (!this.#explicitBucket && this.#first !== null && this.#last !== null) {
      this.#coarsenTo(chooseAutoBucket(this.#first, this.#last, this.#bucketMs));
    }
    const iso = (time: number | null) => (time === null ? null : isoTime(time));
    const routes = rows(project(fine, ["gateway", "route"]), total);
    const points = [...this.#buckets.entries()]
      .sort(([a], [b]) => a - b)
      .map(([start, bucket]): SeriesPoint => {
        const groups = bucket.groups?.groups ?? [];
        const bucketTotals = bucket.totals ?? project(groups, [])[0]?.stats ?? new GroupStats();
        const point: SeriesPoint = {
          start: isoTime(start),
          end: isoTime(start + this.#bucketMs),
          figures: bucketTotals.figures(total),
        };
        if (bucket.groups) point.groups = rows(groups, bucketTotals.calls);
        return point;
      });
    return {
      window: { since: iso(this.#window.since), until: iso(this.#window.until) },
      firstEvent: iso(this.#first),
      lastEvent: iso(this.#last),
      dimensions: [...this.#dimensions],
      counted: total,
      outsideWindow: this.#outsideWindow,
      filteredOut: this.#filteredOut,
      totals: totals.figures(total),
      routes,
      groups: rows(project(fine, this.#dimensions), total),
      series: {
        bucket: formatDuration(this.#bucketMs),
        bucketMs: this.#bucketMs,
        auto: !this.#explicitBucket,
        points,
      },
      steering: steeringOf(this.#steering.routes, routes),
      explanation: explanationOf(this.#explain, routes, this.#bucketMs),
    };
  }

  #skip(reason: "filtered" | "outside_window"): "filtered" | "outside_window" {
    if (reason === "filtered") this.#filteredOut += 1;
    else this.#outsideWindow += 1;
    return reason;
  }

  #addToBucket(time: number, event: AnalyticsEvent): void {
    const start = bucketStart(time, this.#bucketMs);
    let bucket = this.#buckets.get(start);
    if (!bucket) {
      bucket = this.#explicitBucket
        ? { totals: null, groups: new GroupIndex(this.#dimensions) }
        : { totals: new GroupStats(), groups: null };
      this.#buckets.set(start, bucket);
    }
    if (bucket.groups) bucket.groups.of(event).add(event);
    else bucket.totals?.add(event);
    if (!this.#explicitBucket && this.#buckets.size > maxStreamingBuckets) {
      const next = autoBucketSizes.find((size) => size > this.#bucketMs);
      if (next !== undefined) this.#coarsenTo(next);
    }
  }

  /** Moves the automatic series to a coarser size (a multiple), merging buckets exactly. */
  #coarsenTo(next: number): void {
    if (next <= this.#bucketMs) return;
    const merged = new Map<number, Bucket>();
    for (const [start, bucket] of this.#buckets) {
      const target = bucketStart(start, next);
      const into = merged.get(target);
      if (into?.totals && bucket.totals) into.totals.merge(bucket.totals);
      else merged.set(target, bucket);
    }
    this.#buckets = merged;
    this.#bucketMs = next;
    if (this.#buckets.size > maxStreamingBuckets) {
      const coarser = autoBucketSizes.find((size) => size > next);
      if (coarser !== undefined) this.#coarsenTo(coarser);
    }
  }
}

/** Aggregates every event of an iterable (sync or async) in one pass. */
export async function aggregateEvents(
  events: AsyncIterable<CallEvent> | Iterable<CallEvent>,
  options: AggregateOptions = {},
): Promise<Aggregate> {
  const aggregator = new StepRateAggregator(options);
  for await (const event of events) aggregator.add(event);
  return aggregator.finish();
}

/** ISO time of an epoch-ms instant, clamped to the range a `Date` can hold. */
export function isoTime(time: number): string {
  return new Date(Math.max(-8.64e15, Math.min(8.64e15, time))).toISOString();
}

function rows(groups: readonly Group[], scope: number): GroupRow[] {
  return groups
    .map(({ key, stats }) => ({ key, figures: stats.figures(scope) }))
    .sort((a, b) => compareKeys(a.key, b.key));
}
