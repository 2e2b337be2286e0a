/**
 * @module
 * Turns the DuckDB engine's rows (`events-sql.ts`: the calls of one signature in one time
 * bucket) into the state a {@link StepRateAggregator} merges, so the figures come out of the same
 * code that counts an event from the JS reader. Each signature becomes one event, validated by
 * the event schema (`parseEventValue`: the names, step, status, policy, failed and steered steps
 * DuckDB handed over as text); that event is counted once by the aggregator's own parts
 * (`GroupStats.add`, `ExplainTally.add`, `SteeringTally.add`), and their counts are then scaled
 * to the row's calls: a group's per-call counts multiplied, its tokens, cost and latency taken
 * from the row's sums, the tallies doubled by merging (`scaled`). A signature the schema refuses
 * makes the whole file the JS reader's (`RowsRefused`).
 */
import type { AggregateOptions, AggregatorState } from "../aggregate.ts";
import { type AnalyticsEvent, allDimensions, orderDimensions } from "../dimensions.ts";
import { parseEventValue } from "../event-schema.ts";
import { ExplainTally } from "../explain-tally.ts";
import { GroupStats } from "../figures.ts";
import { GroupIndex, groupStates } from "../group-index.ts";
import type { LatencySketchState } from "../latency-sketch.ts";
import { SteeringTally } from "../steering-tally.ts";
import { metadataKeys, signatureColumns, zeroBucket } from "./events-sql.ts";
import { bucketState, type Sums, scaled, servedState, statsOf } from "./scaled-counts.ts";

/** One result row, as `getRowObjectsJS` gives it. */
export type EventsRow = Readonly<Record<string, unknown>>;

/** A signature the event schema refuses: the file goes to the JS reader. */
export class RowsRefused extends Error {}

/** What the rows of one query add up to. */
export interface RowsSummary {
  readonly state: AggregatorState;
  /** Lines read (every class). */
  readonly records: number;
  /** Lines DuckDB could not vouch for (class 3): when not 0, `state` is not to be used. */
  readonly unread: number;
}

interface Signature {
  readonly event: AnalyticsEvent;
  calls: number;
  tokensIn: number;
  tokensOut: number;
  costA: bigint;
  costB: bigint;
}

/** The aggregator state of the rows of one query, made with `options` and `bucketMs`. */
export function rowsToState(
  rows: readonly EventsRow[],
  options: AggregateOptions,
  bucketMs: number | null,
): RowsSummary {
  const dimensions = orderDimensions(options.dimensions ?? allDimensions);
  const keys = metadataKeys(dimensions);
  const keepSeries = (options.series ?? true) && bucketMs !== null;
  const explicit = options.bucketMs != null;
  const fine = new GroupIndex(orderDimensions([...dimensions, "gateway", "route"]));
  const buckets = new Map<number, { totals: GroupStats | null; groups: GroupIndex | null }>();
  const explain = new ExplainTally();
  const signatures = new Map<string, Signature>();
  let records = 0;
  let unread = 0;
  let outsideWindow = 0;
  let filteredOut = 0;
  let first: number | null = null;
  let last: number | null = null;
  for (const row of rows) {
    const calls = Number(row.calls);
    records += calls;
    const kind = Number(row.class);
    if (kind === 3) unread += calls;
    if (kind === 1) filteredOut += calls;
    if (kind === 2) outsideWindow += calls;
    if (kind !== 0) continue;
    const id = JSON.stringify([
      ...signatureColumns.map((name) => row[name]),
      ...keys.map((_, index) => row[`meta_${index + 1}`]),
    ]);
    let signature = signatures.get(id);
    if (signature === undefined) {
      signature = {
        event: eventOf(row, keys),
        calls: 0,
        tokensIn: 0,
        tokensOut: 0,
        costA: 0n,
        costB: 0n,
      };
      signatures.set(id, signature);
    }
    const sums = sumsOf(row);
    signature.calls += calls;
    signature.tokensIn += sums.tokensIn;
    signature.tokensOut += sums.tokensOut;
    signature.costA += sums.costA;
    signature.costB += sums.costB;
    const rowFirst = Number(row.first_time);
    const rowLast = Number(row.last_time);
    if (first === null || rowFirst < first) first = rowFirst;
    if (last === null || rowLast > last) last = rowLast;
    const { event } = signature;
    const stats = statsOf(event, calls, sums, latencyOf(row, calls));
    fine.of(event).merge(stats);
    if (!keepSeries || bucketMs === null) continue;
    const start = Number(row.bucket);
    let bucket = buckets.get(start);
    if (bucket === undefined) {
      bucket = explicit
        ? { totals: null, groups: new GroupIndex(dimensions) }
        : { totals: new GroupStats(), groups: null };
      buckets.set(start, bucket);
    }
    if (bucket.groups) bucket.groups.of(event).merge(stats);
    else bucket.totals?.merge(stats);
    explain.merge(bucketState(event, start, calls, sums, bucketMs));
  }
  const steering = new SteeringTally();
  for (const signature of signatures.values()) {
    const { event } = signature;
    const one = new ExplainTally();
    one.add({ ...event, cost: null }, 0, 0);
    explain.merge(scaled(() => new ExplainTally(), one, signature.calls));
    if (event.step !== null) explain.merge(servedState(signature));
    if (event.skippedSteps || event.demotedSteps || event.hedges) {
      const steered = new SteeringTally();
      steered.add(event);
      steering.merge(scaled(() => new SteeringTally(), steered, signature.calls));
    }
  }
  return {
    records,
    unread,
    state: {
      fine: groupStates(fine),
      buckets: [...buckets].map(([start, bucket]) => ({
        start,
        totals: bucket.totals?.state() ?? null,
        groups: bucket.groups ? groupStates(bucket.groups) : null,
      })),
      bucketMs: bucketMs ?? 1000,
      first,
      last,
      outsideWindow,
      filteredOut,
      steering: steering.state(),
      explain: explain.state(),
    },
  };
}

function sumsOf(row: EventsRow): Sums {
  const big = (value: unknown) =>
    value === null || value === undefined ? 0n : BigInt(value as bigint);
  return {
    tokensIn: Number(big(row.tokens_in)),
    tokensOut: Number(big(row.tokens_out)),
    costA: big(row.cost_a),
    costB: big(row.cost_b),
  };
}

/** The latency sketch of a row: its counts per sketch bucket (always bucketed). */
function latencyOf(row: EventsRow, calls: number): LatencySketchState {
  const entries = (row.latency ?? []) as readonly { key: number; value: bigint | number }[];
  let zeros = 0;
  const buckets: (readonly [number, number])[] = [];
  for (const { key, value } of entries) {
    if (Number(key) === zeroBucket) zeros += Number(value);
    else buckets.push([Number(key), Number(value)]);
  }
  return { samples: null, buckets: buckets.sort((a, b) => a[0] - b[0]), zeros, count: calls };
}

/** The event of a signature, as the schema reads it; throws {@link RowsRefused} if it refuses. */
function eventOf(row: EventsRow, keys: readonly string[]): AnalyticsEvent {
  const json = (name: string) => {
    const text = row[name];
    if (text === null || text === undefined) return undefined;
    try {
      return JSON.parse(String(text));
    } catch {
      throw new RowsRefused(`${name} is not JSON`);
    }
  };
  const record: Record<string, unknown> = {
    time: "2026-01-01T00:00:00.000Z",
    id: "",
    gateway: row.gateway,
    route: row.route,
    mode: row.mode,
    step: row.step ?? null,
    provider: row.provider ?? null,
    model: row.model ?? null,
    status: row.status,
    ok: row.ok,
    cacheStatus: row.cacheStatus ?? null,
    latencyMs: 0,
    tokensIn: row.tokens_in_known ? 0 : null,
    tokensOut: row.tokens_out_known ? 0 : null,
    cost: null,
    errorCode: row.errorCode ?? null,
  };
  if (row.endpoint !== null && row.endpoint !== undefined) record.endpoint = row.endpoint;
  for (const name of ["policy", "failedSteps", "skippedSteps", "demotedSteps", "hedges"]) {
    const value = json(name);
    if (value !== undefined) record[name] = value;
  }
  if (keys.length > 0) {
    const metadata: Record<string, unknown> = {};
    keys.forEach((key, index) => {
      const value = json(`meta_${index + 1}`);
      if (value !== undefined) metadata[key] = value;
    });
    if (Object.keys(metadata).length > 0) record.metadata = metadata;
  }
  const parsed = parseEventValue(record);
  if (!parsed.ok) throw new RowsRefused(parsed.reason);
  return parsed.event;
}
