/**
 * @module
 * Source (4): the companion Worker's Analytics Engine dataset, queried live through the SQL API
 * with the aggregation pushed down. A report window costs a handful of queries, each answering
 * one row per group (never one per call): the counts at the finest grouping needed (the report's
 * dimensions plus gateway, route and step), the counts per time bucket and step (plus the
 * dimensions with an explicit `--bucket`), and the latency quantiles per group, per route, in
 * total and per bucket. With an open window and automatic buckets, one more query finds the span.
 *
 * @example
 * ```ts
 * const source = analyticsEngineSqlSource({ accountId, apiToken, dataset: "stepwise_events" });
 * const report = await buildReport(source, { window: { since: Date.now() - 86_400_000, until: Date.now() } });
 * ```
 */
import type { Aggregate, AggregateOptions, SeriesPoint } from "../aggregate.ts";
import { allDimensions, type Dimension, orderDimensions } from "../dimensions.ts";
import { AnalyticsError } from "../errors.ts";
import type { AggregatingSource } from "../sources/types.ts";
import { SourceTally } from "../sources/types.ts";
import { steeringOf } from "../steering.ts";
import { chooseAutoBucket, formatDuration } from "../window.ts";
import {
  bucketIso,
  CountTable,
  figuresOfTally,
  numberColumn,
  QuantileTable,
  RowError,
  rowsOf,
  withStepAndRoute,
} from "./assemble.ts";
import {
  countSelections,
  type Grouping,
  groupedQuery,
  type QueryScope,
  quantileSelections,
  spanQuery,
} from "./call-point-sql.ts";
import { SqlApiClient, type SqlApiOptions, type SqlRow } from "./sql-api.ts";

/** The dataset the companion Worker writes to (`wrangler.jsonc`). */
export const defaultDataset = "stepwise_events";

export interface AnalyticsEngineSqlOptions extends SqlApiOptions {
  /** Dataset to read (default {@link defaultDataset}). */
  readonly dataset?: string;
  /** Malformed rows kept as samples (default 5). */
  readonly malformedSamples?: number;
}

/** The live Analytics Engine dataset as an aggregating source. */
export function analyticsEngineSqlSource(options: AnalyticsEngineSqlOptions): AggregatingSource {
  const dataset = options.dataset ?? defaultDataset;
  const client = new SqlApiClient(options);
  const stats = new SourceTally(options.malformedSamples);
  stats.bytesFetched = 0;
  stats.requests = 0;
  const run = async (sql: string): Promise<SqlRow[]> => {
    try {
      return await client.query(sql);
    } finally {
      stats.bytesFetched = client.bytes;
      stats.requests = client.queries;
    }
  };
  return {
    kind: "analytics-engine",
    name: `Analytics Engine ${dataset}`,
    stats,
    aggregate: (aggregateOptions) => aggregateLive({ dataset, run, stats }, aggregateOptions),
  };
}

interface LiveContext {
  readonly dataset: string;
  readonly run: (sql: string) => Promise<SqlRow[]>;
  readonly stats: SourceTally;
}

async function aggregateLive(context: LiveContext, options: AggregateOptions): Promise<Aggregate> {
  const dimensions = orderDimensions(options.dimensions ?? allDimensions);
  const window = options.window ?? { since: null, until: null };
  const scope: QueryScope = {
    dataset: context.dataset,
    window,
    gateways: options.gateways ?? [],
    routes: options.routes ?? [],
  };
  const keepSeries = options.series ?? true;
  const explicit = options.bucketMs != null;
  const bucketMs = explicit
    ? Math.max(1000, Math.round((options.bucketMs ?? 0) / 1000) * 1000)
    : keepSeries
      ? await automaticBucket(context, scope)
      : null;
  const rowsFor = async (grouping: Grouping, measures: readonly string[]) => {
    const sql = safeQuery(() => groupedQuery(scope, grouping, measures));
    return context.run(sql);
  };
  // Counts at the finest grouping: groups, routes and totals add up from it.
  const fine = withStepAndRoute(dimensions);
  const groupCounts = new CountTable(dimensions);
  const routeCounts = new CountTable(["gateway", "route"]);
  const totalCounts = new CountTable([]);
  let first: number | null = null;
  let last: number | null = null;
  for (const row of await rowsFor({ dimensions: fine }, countSelections)) {
    read(context, () => {
      groupCounts.add(row, fine);
      routeCounts.add(row, fine);
      totalCounts.add(row, fine);
      const rowFirst = numberColumn(row, "first_time") * 1000;
      const rowLast = numberColumn(row, "last_time") * 1000;
      first = first === null ? rowFirst : Math.min(first, rowFirst);
      last = last === null ? rowLast : Math.max(last, rowLast);
    });
  }
  const quantiles = new QuantileTable();
  const routeDimensions: Dimension[] = ["gateway", "route"];
  const quantileGroupings: Dimension[][] = [dimensions];
  if (JSON.stringify(dimensions) !== JSON.stringify(routeDimensions)) {
    quantileGroupings.push(routeDimensions);
  }
  if (dimensions.length > 0) quantileGroupings.push([]);
  for (const grouping of quantileGroupings) {
    for (const row of await rowsFor({ dimensions: grouping }, quantileSelections)) {
      read(context, () => quantiles.add(row, grouping));
    }
  }
  const totalTally = totalCounts.tallies()[0];
  const total = totalTally?.counts.calls ?? 0;
  const points =
    bucketMs === null
      ? []
      : await seriesPoints(context, rowsFor, { dimensions, bucketMs, explicit, total });
  const iso = (time: number | null) => (time === null ? null : new Date(time).toISOString());
  const routes = rowsOf(routeCounts.tallies(), routeDimensions, quantiles, total);
  return {
    window: { since: iso(window.since), until: iso(window.until) },
    firstEvent: iso(first),
    lastEvent: iso(last),
    dimensions,
    counted: total,
    outsideWindow: 0,
    filteredOut: 0,
    totals: figuresOfTally(totalTally, quantiles.get({}, []), total),
    routes,
    groups: rowsOf(groupCounts.tallies(), dimensions, quantiles, total),
    series: {
      bucket: formatDuration(bucketMs ?? 60_000),
      bucketMs: bucketMs ?? 60_000,
      auto: !explicit,
      points,
    },
    // The Worker's points carry no client steering: every route shows it as not recorded.
    steering: steeringOf(new Map(), routes),
  };
}

/** Per bucket: counts per step (and per group with an explicit bucket) and quantiles. */
async function seriesPoints(
  context: LiveContext,
  rowsFor: (grouping: Grouping, measures: readonly string[]) => Promise<SqlRow[]>,
  series: { dimensions: Dimension[]; bucketMs: number; explicit: boolean; total: number },
): Promise<SeriesPoint[]> {
  const { dimensions, bucketMs, explicit, total } = series;
  const countDimensions: Dimension[] = explicit ? withStepAndRoute(dimensions) : ["step"];
  const bucketTotals = new CountTable([]);
  const bucketGroups = new CountTable(dimensions);
  const starts = new Set<number>();
  const countRows = await rowsFor({ dimensions: countDimensions, bucketMs }, countSelections);
  for (const row of countRows) {
    read(context, () => {
      const bucket = String(numberColumn(row, "bucket"));
      starts.add(Number(bucket));
      bucketTotals.add(row, countDimensions, bucket);
      if (explicit) bucketGroups.add(row, countDimensions, bucket);
    });
  }
  const quantiles = new QuantileTable();
  const quantileGroupings: Dimension[][] =
    explicit && dimensions.length > 0 ? [[], dimensions] : [[]];
  for (const grouping of quantileGroupings) {
    for (const row of await rowsFor({ dimensions: grouping, bucketMs }, quantileSelections)) {
      read(context, () => quantiles.add(row, grouping, String(numberColumn(row, "bucket"))));
    }
  }
  return [...starts]
    .sort((a, b) => a - b)
    .map((start) => {
      const bucket = String(start);
      const tally = bucketTotals.tallies(bucket)[0];
      const point: SeriesPoint = {
        start: bucketIso(start),
        end: bucketIso(start + bucketMs / 1000),
        figures: figuresOfTally(tally, quantiles.get({}, [], bucket), total),
      };
      if (explicit) {
        point.groups = rowsOf(
          bucketGroups.tallies(bucket),
          dimensions,
          quantiles,
          tally?.counts.calls ?? 0,
          bucket,
        );
      }
      return point;
    });
}

/** The automatic bucket for the window, or for the span of the points when it is open. */
async function automaticBucket(context: LiveContext, scope: QueryScope): Promise<number> {
  const { since, until } = scope.window;
  if (since !== null && until !== null) return chooseAutoBucket(since, until - 1);
  const [row] = await context.run(safeQuery(() => spanQuery(scope)));
  const first = row?.first_time;
  const last = row?.last_time;
  const from = since ?? (first === undefined || first === null ? Date.now() : Number(first) * 1000);
  const to =
    until !== null ? until - 1 : last === undefined || last === null ? from : Number(last) * 1000;
  return chooseAutoBucket(from, Math.max(from, to), 1000);
}

function read(context: LiveContext, use: () => void): void {
  context.stats.records += 1;
  try {
    use();
  } catch (error) {
    if (!(error instanceof RowError)) throw error;
    context.stats.reject(context.stats.records, error.message);
  }
}

function safeQuery(build: () => string): string {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new AnalyticsError({
      code: "analytics_invalid_option",
      message: `Cannot query Analytics Engine: ${error.message}.`,
      cause: error,
    });
  }
}
