/**
 * @module
 * The SQL `stepwise report` sends to the Workers Analytics Engine SQL API, built from the one
 * column map of a call point (`src/worker/analytics-schema.ts`), so the Worker's writer and this
 * reader name the same columns. Every query aggregates on Cloudflare's side and returns one row
 * per group, never one per call.
 *
 * One call, one row: the Worker writes a point per request, and a call the client re-sent (a cut
 * stream, a refusal, a rejected answer) is several requests sharing the app (`blob7`) and the
 * event id (`blob10`). Every query reads from {@link callsTable}, a subquery that keeps each
 * call's last attempt (`argMax(…, double9)`): its route step, status, tokens and cost (the
 * answer kept), its latency (from the call's first attempt), and the first attempt's time. A
 * point without an event id stands alone.
 *
 * Only functions Analytics Engine documents are used: `sum`, `min`, `max`, `if`, `startsWith`,
 * `substring`, `length`, `toDateTime`, `toUnixTimestamp`, `toStartOfInterval`,
 * `quantileExactWeighted` and `argMax` (its SQL reference; `multiIf` and `UNION` are not there,
 * so a metadata key is read with nested `if`s and each grouping is its own query; "FROM
 * <table_name>|(subquery)" is). Sampling is corrected with `_sample_interval`: a row stands for
 * that many calls in every count, sum and quantile (a call's, its last attempt's).
 *
 * Figures, as in `figures.ts`: calls `sum(_sample_interval)`; ok `double4 = 1`; answered: ok, or
 * a 4xx other than 408 and 429; fallback: step ≥ 1; unknown tokens and cost (−1) count as 0;
 * cache lookups are `HIT` or `MISS`. Latency quantiles are nearest-rank over
 * `double3` weighted by `_sample_interval`.
 */
import {
  appMetadataKey,
  callColumnOf,
  callPointColumns,
  callPointSchemaVersion,
  callsSubquery,
  metadataColumns,
  sampleIntervalColumn,
  timestampColumn,
} from "../../worker/analytics-schema.ts";
import {
  type Dimension,
  type FieldDimension,
  isMetadataDimension,
  metadataKeyOf,
} from "../dimensions.ts";
import type { TimeWindow } from "../window.ts";

/** What every query of a report shares: the dataset and the rows it may look at. */
export interface QueryScope {
  /** Analytics Engine dataset (table), e.g. `stepwise_events`. */
  readonly dataset: string;
  /** Only points in this window (whole seconds; Analytics Engine stamps seconds). */
  readonly window: TimeWindow;
  /** Only these gateways / routes (empty: all). */
  readonly gateways?: readonly string[];
  readonly routes?: readonly string[];
}

/** One grouping of a report: its dimensions, and the bucket size when grouped by time. */
export interface Grouping {
  readonly dimensions: readonly Dimension[];
  /** Group by time buckets of this many ms (a whole number of seconds). */
  readonly bucketMs?: number;
}

/** Columns of a call's last attempt, as {@link callsTable} names them (`call_blob2`, …). */
const weight = callColumnOf(sampleIntervalColumn);
const time = callColumnOf(timestampColumn);
const column = Object.fromEntries(
  Object.entries(callPointColumns).map(([field, name]) => [field, callColumnOf(name)]),
) as Record<keyof typeof callPointColumns, string>;
const callMetadataColumns = metadataColumns.map(callColumnOf);

/**
 * The scope's calls, one row each (`callsSubquery` of `src/worker/analytics-schema.ts`): every
 * column of a call point under `call_<column>` (`call_blob2` route, `call_double1` step, …), its
 * last attempt's, plus `call_timestamp` (its first attempt's) and `call_sample_interval`. Use it
 * as `FROM (…)`.
 */
export function callsTable(scope: QueryScope): string {
  return callsSubquery(datasetName(scope.dataset), whereClause(scope));
}

/**
 * The SQL expression of a dimension's value (a metadata key reads blob11–blob15; `metadata.app`
 * reads blob7, where the Worker writes the app instead).
 */
export function dimensionExpression(dimension: Dimension): string {
  if (isMetadataDimension(dimension)) {
    if (metadataKeyOf(dimension) === appMetadataKey) return column.app;
    const prefix = `${metadataKeyOf(dimension)}=`;
    // ClickHouse's substring counts bytes, not characters.
    const start = new TextEncoder().encode(prefix).length + 1;
    // The writer sorts entries by key, one `key=value` per column, so one column at most matches.
    return callMetadataColumns.reduceRight(
      (otherwise, metadataColumn) =>
        `if(startsWith(${metadataColumn}, ${sqlString(prefix)}), substring(${metadataColumn}, ${start}), ${otherwise})`,
      "''",
    );
  }
  // The Worker writes `dynamic` for a compat call to `dynamic/<route>`; the endpoint is compat.
  if (dimension === "endpoint") {
    return `if(${column.mode} = 'dynamic', 'compat', ${column.mode})`;
  }
  const fields: Record<FieldDimension, string> = {
    gateway: column.gateway,
    route: column.route,
    step: column.step,
    provider: column.provider,
    model: column.model,
  };
  return fields[dimension];
}

/** The result column a dimension comes back in: `gateway`, …, `metadata_1` for metadata keys. */
export function dimensionAlias(dimension: Dimension, dimensions: readonly Dimension[]): string {
  if (!isMetadataDimension(dimension)) return dimension;
  return `metadata_${dimensions.filter(isMetadataDimension).indexOf(dimension) + 1}`;
}

/** The additive counts of a group, as select items (see the module doc). */
export const countSelections: readonly string[] = [
  `sum(${weight}) AS calls`,
  `sum(if(${column.ok} = 1, ${weight}, 0)) AS ok`,
  `sum(if(${column.ok} = 1 OR (${column.status} >= 400 AND ${column.status} < 500 AND ${column.status} != 408 AND ${column.status} != 429), ${weight}, 0)) AS answered`,
  `sum(if(${column.step} >= 1, ${weight}, 0)) AS fallbacks`,
  `sum(if(${column.tokensIn} > 0, ${column.tokensIn} * ${weight}, 0)) AS tokens_in`,
  `sum(if(${column.tokensOut} > 0, ${column.tokensOut} * ${weight}, 0)) AS tokens_out`,
  `sum(if(${column.cost} > 0, ${column.cost} * ${weight}, 0)) AS cost`,
  `sum(if(${column.cacheStatus} = 'HIT', ${weight}, 0)) AS cache_hits`,
  `sum(if(${column.cacheStatus} = 'HIT' OR ${column.cacheStatus} = 'MISS', ${weight}, 0)) AS cache_lookups`,
  `toUnixTimestamp(min(${time})) AS first_time`,
  `toUnixTimestamp(max(${time})) AS last_time`,
];

/** The latency quantiles of a group, as select items. */
export const quantileSelections: readonly string[] = [
  `quantileExactWeighted(0.5)(${column.latencyMs}, ${weight}) AS p50`,
  `quantileExactWeighted(0.95)(${column.latencyMs}, ${weight}) AS p95`,
  `quantileExactWeighted(0.99)(${column.latencyMs}, ${weight}) AS p99`,
  `sum(${weight}) AS calls`,
];

/** `SELECT <keys>, <measures> FROM <dataset> WHERE <scope> GROUP BY <keys>`. */
export function groupedQuery(
  scope: QueryScope,
  grouping: Grouping,
  measures: readonly string[],
): string {
  const keys = grouping.dimensions.map(
    (dimension) =>
      `${dimensionExpression(dimension)} AS ${dimensionAlias(dimension, grouping.dimensions)}`,
  );
  if (grouping.bucketMs !== undefined)
    keys.push(`${bucketExpression(grouping.bucketMs)} AS bucket`);
  const aliases = [
    ...grouping.dimensions.map((dimension) => dimensionAlias(dimension, grouping.dimensions)),
    ...(grouping.bucketMs === undefined ? [] : ["bucket"]),
  ];
  return [
    `SELECT ${[...keys, ...measures].join(", ")}`,
    `FROM (${callsTable(scope)})`,
    ...(aliases.length > 0 ? [`GROUP BY ${aliases.join(", ")}`] : []),
    "FORMAT JSONEachRow",
  ].join("\n");
}

/** The first and last point of the scope and their count: to size automatic buckets. */
export function spanQuery(scope: QueryScope): string {
  return [
    `SELECT toUnixTimestamp(min(${time})) AS first_time, toUnixTimestamp(max(${time})) AS last_time, sum(${weight}) AS calls`,
    `FROM (${callsTable(scope)})`,
    "FORMAT JSONEachRow",
  ].join("\n");
}

/** `toUnixTimestamp(toStartOfInterval(timestamp, INTERVAL '<n>' SECOND))`: epoch-aligned. */
export function bucketExpression(bucketMs: number): string {
  const seconds = Math.max(1, Math.round(bucketMs / 1000));
  return `toUnixTimestamp(toStartOfInterval(${time}, INTERVAL '${seconds}' SECOND))`;
}

function whereClause(scope: QueryScope): string {
  const conditions: string[] = [];
  // Analytics Engine stamps whole seconds: a window [since, until) in ms keeps the seconds that
  // start inside it.
  if (scope.window.since !== null) {
    conditions.push(`${timestampColumn} >= toDateTime(${Math.ceil(scope.window.since / 1000)})`);
  }
  if (scope.window.until !== null) {
    conditions.push(`${timestampColumn} < toDateTime(${Math.ceil(scope.window.until / 1000)})`);
  }
  if (scope.gateways?.length) {
    conditions.push(`${callPointColumns.gateway} IN (${scope.gateways.map(sqlString).join(", ")})`);
  }
  if (scope.routes?.length) {
    conditions.push(`${callPointColumns.route} IN (${scope.routes.map(sqlString).join(", ")})`);
  }
  // Only points of this schema version: anything else in the dataset is another layout.
  conditions.push(`${callPointColumns.version} = ${callPointSchemaVersion}`);
  return conditions.join(" AND ");
}

/** A dataset name as a table: letters, digits and underscores only. */
export function datasetName(dataset: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(dataset)) {
    throw new RangeError(
      `dataset "${dataset}" is not a table name: use letters, digits and underscores (e.g. stepwise_events)`,
    );
  }
  return dataset;
}

/**
 * A SQL string literal, quotes doubled. Backslashes and control characters are refused: dialects
 * disagree on what they mean inside a literal, and no gateway, route or metadata key needs them.
 */
export function sqlString(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\u0000-\u001f\\]/.test(value)) {
    throw new RangeError(
      `${JSON.stringify(value)} has a backslash or a control character, which a query cannot carry`,
    );
  }
  return `'${value.replaceAll("'", "''")}'`;
}
