/**
 * @module
 * Turns the aggregate rows the SQL API returns into the report's figures: counts are added up
 * from the finest grouping to each coarser one (groups, routes, totals, buckets), and latency
 * quantiles, which do not add up, come from a query per grouping. Values arrive as JSON numbers
 * or as numeric strings (64-bit integers); step −1 and empty names read as "none".
 */
import { isoTime } from "../aggregate.ts";
import { compareKeys, type Dimension, type GroupKey, isMetadataDimension } from "../dimensions.ts";
import {
  type CallCounts,
  type Figures,
  figuresOf,
  type LatencyQuantiles,
  stepKey,
} from "../figures.ts";
import { dimensionAlias } from "./call-point-sql.ts";
import type { SqlRow } from "./sql-api.ts";

/** A row that could not be read, and why. */
export class RowError extends Error {}

/** Counts and steps of one group, added up from finer rows. */
interface Tally {
  key: GroupKey;
  counts: CallCounts;
  steps: Map<string, number>;
}

/** Reads a number column; throws `RowError` when it is missing or not a number. */
export function numberColumn(row: SqlRow, column: string): number {
  const value = row[column];
  const number =
    typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  if (value === "" || !Number.isFinite(number)) {
    throw new RowError(`${column}: ${JSON.stringify(value)} is not a number`);
  }
  return number;
}

/** The group key of a row for `dimensions` (as aliased by the query). */
export function keyOfRow(row: SqlRow, dimensions: readonly Dimension[]): GroupKey {
  const key: GroupKey = {};
  for (const dimension of dimensions) {
    const value = row[dimensionAlias(dimension, dimensions)];
    if (dimension === "step") {
      const step = numberColumn(row, "step");
      key.step = step < 0 ? null : step;
    } else if (dimension === "gateway" || dimension === "route") {
      key[dimension] = value === undefined || value === null ? "" : String(value);
    } else {
      const text = value === undefined || value === null ? "" : String(value);
      key[dimension] = text === "" ? null : text;
    }
  }
  return key;
}

/** Adds rows (grouped by at least `dimensions` and `step`) up to `dimensions`. */
export class CountTable {
  readonly #dimensions: readonly Dimension[];
  readonly #tallies = new Map<string, Tally>();

  constructor(dimensions: readonly Dimension[]) {
    this.#dimensions = dimensions;
  }

  /** Adds a row read with `rowDimensions` (which include `step` and this table's dimensions). */
  add(row: SqlRow, rowDimensions: readonly Dimension[], extraId = ""): GroupKey {
    const full = keyOfRow(row, rowDimensions);
    const key: GroupKey = {};
    for (const dimension of this.#dimensions) key[dimension] = full[dimension] ?? null;
    const id = `${extraId}\u0000${JSON.stringify(this.#dimensions.map((dimension) => key[dimension]))}`;
    let tally = this.#tallies.get(id);
    if (!tally) {
      tally = { key, counts: emptyCounts(), steps: new Map() };
      this.#tallies.set(id, tally);
    }
    const counts = countsOfRow(row);
    for (const name of Object.keys(counts) as Array<keyof CallCounts>) {
      tally.counts[name] += counts[name];
    }
    const step = stepKey(full.step === undefined ? null : (full.step as number | null));
    tally.steps.set(step, (tally.steps.get(step) ?? 0) + counts.calls);
    return key;
  }

  /** Every group's tally (for one `extraId` when given), sorted by key. */
  tallies(extraId?: string): Tally[] {
    return [...this.#tallies.entries()]
      .filter(([id]) => extraId === undefined || id.startsWith(`${extraId}\u0000`))
      .map(([, tally]) => tally)
      .sort((a, b) => compareKeys(a.key, b.key));
  }
}

/** Latency quantiles per group, from a quantile query's rows. */
export class QuantileTable {
  readonly #byId = new Map<string, LatencyQuantiles>();

  add(row: SqlRow, dimensions: readonly Dimension[], extraId = ""): void {
    const key = keyOfRow(row, dimensions);
    const quantile = (column: string) => {
      const value = row[column];
      return value === null || value === undefined ? null : numberColumn(row, column);
    };
    this.#byId.set(idOf(key, dimensions, extraId), {
      p50: quantile("p50"),
      p95: quantile("p95"),
      p99: quantile("p99"),
      exact: true,
    });
  }

  get(key: GroupKey, dimensions: readonly Dimension[], extraId = ""): LatencyQuantiles {
    return (
      this.#byId.get(idOf(key, dimensions, extraId)) ?? {
        p50: null,
        p95: null,
        p99: null,
        exact: true,
      }
    );
  }
}

/** Figures of tallies, with their quantiles, `share` relative to `scope` calls. */
export function rowsOf(
  tallies: readonly Tally[],
  dimensions: readonly Dimension[],
  quantiles: QuantileTable,
  scope: number,
  extraId = "",
): Array<{ key: GroupKey; figures: Figures }> {
  return tallies.map((tally) => ({
    key: tally.key,
    figures: figuresOf(
      tally.counts,
      tally.steps,
      quantiles.get(tally.key, dimensions, extraId),
      scope,
    ),
  }));
}

/** Figures of one tally (or of no calls). */
export function figuresOfTally(
  tally: Tally | undefined,
  latency: LatencyQuantiles,
  scope: number,
): Figures {
  return figuresOf(tally?.counts ?? emptyCounts(), tally?.steps ?? new Map(), latency, scope);
}

/** `2026-05-01T00:00:00.000Z` for a bucket column in epoch seconds. */
export function bucketIso(seconds: number): string {
  return isoTime(seconds * 1000);
}

/** The dimensions a query groups by, with `step` (and routes) for counting. */
export function withStepAndRoute(dimensions: readonly Dimension[]): Dimension[] {
  const wanted = new Set<Dimension>([...dimensions, "gateway", "route", "step"]);
  return [
    ...(["gateway", "route", "step", "provider", "model", "endpoint"] as const).filter(
      (dimension) => wanted.has(dimension),
    ),
    ...[...wanted].filter(isMetadataDimension).sort(),
  ];
}

function idOf(key: GroupKey, dimensions: readonly Dimension[], extraId: string): string {
  return `${extraId}\u0000${JSON.stringify(dimensions.map((dimension) => key[dimension] ?? null))}`;
}

function countsOfRow(row: SqlRow): CallCounts {
  return {
    calls: numberColumn(row, "calls"),
    ok: numberColumn(row, "ok"),
    answered: numberColumn(row, "answered"),
    fallbacks: numberColumn(row, "fallbacks"),
    tokensIn: numberColumn(row, "tokens_in"),
    tokensOut: numberColumn(row, "tokens_out"),
    cost: numberColumn(row, "cost"),
    cacheHits: numberColumn(row, "cache_hits"),
    cacheLookups: numberColumn(row, "cache_lookups"),
    // A Worker's point does not know which branch of a routing policy a call took.
    budgetHits: 0,
  };
}

function emptyCounts(): CallCounts {
  return {
    calls: 0,
    ok: 0,
    answered: 0,
    fallbacks: 0,
    tokensIn: 0,
    tokensOut: 0,
    cost: 0,
    cacheHits: 0,
    cacheLookups: 0,
    budgetHits: 0,
  };
}
