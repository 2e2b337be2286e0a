/**
 * @module
 * The streaming step-rate aggregation: feed events one by one, get every figure per group, per
 * route, overall and per time bucket. Memory is O(groups × buckets): each group holds a few
 * counters and a bounded latency sketch, never the events.
 */
import type { CallEvent } from "../client/event.ts";
import { type Figures, GroupStats } from "./figures.ts";
import { bucketStart, formatDuration, inWindow, type TimeWindow } from "./window.ts";

/** A field events are grouped by. */
export type Dimension = "gateway" | "route" | "step" | "provider" | "model";

/** Canonical order of dimensions in keys and tables. */
export const allDimensions: readonly Dimension[] = [
  "gateway",
  "route",
  "step",
  "provider",
  "model",
];

/** The values of a group's dimensions (only the grouped ones are present). */
export type GroupKey = Partial<Record<Dimension, string | number | null>>;

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

/** Automatic bucket sizes, each a multiple of the previous one, so buckets merge exactly. */
const autoBucketSizes = [60_000, 300_000, 900_000, 3_600_000, 21_600_000, 86_400_000, 604_800_000];
/** The automatic series coarsens once it holds more buckets than this. */
export const maxAutoBuckets = 240;

interface Bucket {
  totals: GroupStats;
  groups: Map<string, { key: GroupKey; stats: GroupStats }> | null;
}

/** One-pass aggregator. Call `add` for each event, then `finish` once. */
export class StepRateAggregator {
  readonly #dimensions: Dimension[];
  readonly #window: TimeWindow;
  readonly #gateways: ReadonlySet<string> | null;
  readonly #routes: ReadonlySet<string> | null;
  readonly #explicitBucket: boolean;
  readonly #keepSeries: boolean;
  #bucketMs: number;
  readonly #totals = new GroupStats();
  readonly #groups = new Map<string, { key: GroupKey; stats: GroupStats }>();
  readonly #routeGroups = new Map<string, { key: GroupKey; stats: GroupStats }>();
  #buckets = new Map<number, Bucket>();
  #first: number | null = null;
  #last: number | null = null;
  #outsideWindow = 0;
  #filteredOut = 0;

  constructor(options: AggregateOptions = {}) {
    const wanted = new Set(options.dimensions ?? allDimensions);
    this.#dimensions = allDimensions.filter((dimension) => wanted.has(dimension));
    this.#window = options.window ?? { since: null, until: null };
    this.#gateways = options.gateways?.length ? new Set(options.gateways) : null;
    this.#routes = options.routes?.length ? new Set(options.routes) : null;
    this.#explicitBucket = options.bucketMs != null;
    this.#bucketMs = options.bucketMs ?? autoBucketSizes[0] ?? 60_000;
    this.#keepSeries = options.series ?? true;
  }

  /** Counts one event; says whether it was counted or why not. */
  add(event: CallEvent): "counted" | "outside_window" | "filtered" {
    if (this.#gateways && !this.#gateways.has(event.gateway)) return this.#skip("filtered");
    if (this.#routes && !this.#routes.has(event.route)) return this.#skip("filtered");
    const time = Date.parse(event.time);
    if (!inWindow(this.#window, time)) return this.#skip("outside_window");
    if (this.#first === null || time < this.#first) this.#first = time;
    if (this.#last === null || time > this.#last) this.#last = time;
    this.#totals.add(event);
    const id = this.#idOf(event);
    statsFor(this.#groups, id, () => this.#keyOf(event)).add(event);
    statsFor(this.#routeGroups, `${event.gateway}\u0000${event.route}`, () => ({
      gateway: event.gateway,
      route: event.route,
    })).add(event);
    if (this.#keepSeries) this.#addToBucket(time, event, id);
    return "counted";
  }

  /** The figures. The aggregator should not be used afterwards. */
  finish(): Aggregate {
    const total = this.#totals.calls;
    const iso = (time: number | null) => (time === null ? null : new Date(time).toISOString());
    const points = [...this.#buckets.entries()]
      .sort(([a], [b]) => a - b)
      .map(([start, bucket]): SeriesPoint => {
        const point: SeriesPoint = {
          start: new Date(start).toISOString(),
          end: new Date(start + this.#bucketMs).toISOString(),
          figures: bucket.totals.figures(total),
        };
        if (bucket.groups) point.groups = rows(bucket.groups, bucket.totals.calls);
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
      totals: this.#totals.figures(total),
      routes: rows(this.#routeGroups, total),
      groups: rows(this.#groups, total),
      series: {
        bucket: formatDuration(this.#bucketMs),
        bucketMs: this.#bucketMs,
        auto: !this.#explicitBucket,
        points,
      },
    };
  }

  #skip(reason: "filtered" | "outside_window"): "filtered" | "outside_window" {
    if (reason === "filtered") this.#filteredOut += 1;
    else this.#outsideWindow += 1;
    return reason;
  }

  /** A cheap string identity of the event's group (no allocation of the key object). */
  #idOf(event: CallEvent): string {
    let id = "";
    for (const dimension of this.#dimensions) {
      const value = event[dimension];
      id += value === null ? "\u0001\u0000" : `${value}\u0000`;
    }
    return id;
  }

  #keyOf(event: CallEvent): GroupKey {
    const key: GroupKey = {};
    for (const dimension of this.#dimensions) key[dimension] = event[dimension];
    return key;
  }

  #addToBucket(time: number, event: CallEvent, id: string): void {
    const start = bucketStart(time, this.#bucketMs);
    let bucket = this.#buckets.get(start);
    if (!bucket) {
      bucket = { totals: new GroupStats(), groups: this.#explicitBucket ? new Map() : null };
      this.#buckets.set(start, bucket);
    }
    bucket.totals.add(event);
    if (bucket.groups) statsFor(bucket.groups, id, () => this.#keyOf(event)).add(event);
    if (
      !this.#explicitBucket &&
      this.#buckets.size > maxAutoBuckets &&
      this.#bucketMs < (autoBucketSizes.at(-1) ?? 0)
    ) {
      this.#coarsen();
    }
  }

  /** Moves the automatic series to the next bucket size, merging buckets exactly. */
  #coarsen(): void {
    const next = autoBucketSizes.find((size) => size > this.#bucketMs);
    if (next === undefined) return;
    const merged = new Map<number, Bucket>();
    for (const [start, bucket] of this.#buckets) {
      const target = bucketStart(start, next);
      const into = merged.get(target);
      if (into) into.totals.merge(bucket.totals);
      else merged.set(target, bucket);
    }
    this.#buckets = merged;
    this.#bucketMs = next;
    if (this.#buckets.size > maxAutoBuckets) this.#coarsen();
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

function statsFor(
  groups: Map<string, { key: GroupKey; stats: GroupStats }>,
  id: string,
  makeKey: () => GroupKey,
): GroupStats {
  let entry = groups.get(id);
  if (!entry) {
    entry = { key: makeKey(), stats: new GroupStats() };
    groups.set(id, entry);
  }
  return entry.stats;
}

function rows(
  groups: Map<string, { key: GroupKey; stats: GroupStats }>,
  scope: number,
): GroupRow[] {
  return [...groups.values()]
    .map(({ key, stats }) => ({ key, figures: stats.figures(scope) }))
    .sort((a, b) => compareKeys(a.key, b.key));
}

/** Orders rows by gateway, route, step (0, 1, …, none), provider, model. */
export function compareKeys(a: GroupKey, b: GroupKey): number {
  for (const dimension of allDimensions) {
    const left = a[dimension];
    const right = b[dimension];
    if (left === right) continue;
    if (left === undefined || left === null) return 1;
    if (right === undefined || right === null) return -1;
    if (typeof left === "number" && typeof right === "number") return left - right;
    return String(left).localeCompare(String(right));
  }
  return 0;
}
