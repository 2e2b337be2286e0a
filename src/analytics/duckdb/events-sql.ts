/**
 * @module
 * The one query the DuckDB engine runs over an events file: `read_ndjson` with the columns the
 * report reads, and one GROUP BY over every field a figure depends on (the call's names, step,
 * status, cache status, policy, failed and steered steps, the grouped metadata keys, whether its
 * tokens are known) and its time bucket. Each row hands over the calls of one such signature in
 * one bucket with the additive measures: calls, tokens, the cost as two exact integer sums, the
 * first and last time, and the latency as the counts per bucket of the report's own sketch
 * (`latency-sketch.ts`: index `ceil(ln x / ln γ)`, values below 0.001 ms as zeros, under
 * {@link zeroBucket}). JavaScript
 * then counts each signature once, with the same code as one event (`rows-state.ts`).
 *
 * Cost, exactly: a cost `c` (at most $1,000,000) is `a · 2⁻⁴⁰ + b · 2⁻⁹⁶` with whole `a < 2⁶⁰`
 * and `b < 2⁵⁶` (multiplying by a power of two and taking the floor are exact in doubles); both
 * sum exactly in 128-bit integers, so the total is the exact sum of the doubles, read rounded once
 * as `exact-sum.ts` reads it. A cost with bits below 2⁻⁹⁶ (under about 10⁻¹³ dollars) makes the
 * line one the engine does not take (`valid` is false).
 *
 * Each line falls in a class: 0 counted, 1 left out by `--gateway`/`--route`, 2 outside the
 * window, 3 not one DuckDB can vouch for (a missing or out-of-range value); a time not in the
 * client's `2026-05-01T12:00:00.000Z` form (DuckDB's `timestampformat`, read as the line is
 * parsed) fails the query: either way the engine hands the file to the JS reader.
 */
import { type Dimension, isMetadataDimension, metadataKeyOf } from "../dimensions.ts";
import { eventLimits } from "../event-limits.ts";
import { relativeAccuracy } from "../latency-sketch.ts";
import type { TimeWindow } from "../window.ts";

/**
 * DuckDB's buffer for one line: the JS reader's limit (`read-lines.ts`), which keeps its memory
 * small. DuckDB does not refuse a longer line as the JS reader does (see `duckdb-events.ts`).
 */
const maxLineBytes = 1024 * 1024;

/** The histogram key of the latencies the sketch counts as 0 (below 0.001 ms; no real index). */
export const zeroBucket = -2_000_000;

/** What one query counts. */
export interface EventsQuery {
  /** The events file. */
  readonly path: string;
  /** The report's dimensions (the metadata keys among them are read). */
  readonly dimensions: readonly Dimension[];
  readonly window: TimeWindow;
  readonly gateways: readonly string[];
  readonly routes: readonly string[];
  /** Time bucket of the rows in ms; null for none (one bucket, start 0). */
  readonly bucketMs: number | null;
}

/** The signature columns of a row, in order (metadata keys follow as `meta_1`, …). */
export const signatureColumns = [
  "gateway",
  "route",
  "mode",
  "endpoint",
  "step",
  "provider",
  "model",
  "status",
  "ok",
  "cacheStatus",
  "errorCode",
  "policy",
  "failedSteps",
  "skippedSteps",
  "demotedSteps",
  "hedges",
  "tokens_in_known",
  "tokens_out_known",
] as const;

const columnTypes: Record<string, string> = {
  time: "TIMESTAMP",
  gateway: "VARCHAR",
  route: "VARCHAR",
  mode: "VARCHAR",
  endpoint: "VARCHAR",
  step: "DOUBLE",
  provider: "VARCHAR",
  model: "VARCHAR",
  status: "DOUBLE",
  ok: "BOOLEAN",
  cacheStatus: "VARCHAR",
  latencyMs: "DOUBLE",
  tokensIn: "DOUBLE",
  tokensOut: "DOUBLE",
  cost: "DOUBLE",
  errorCode: "VARCHAR",
  policy: "VARCHAR",
  failedSteps: "VARCHAR",
  skippedSteps: "VARCHAR",
  demotedSteps: "VARCHAR",
  hedges: "VARCHAR",
};

/** `'text'` as a SQL string literal. */
export function sqlText(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The metadata keys a query reads, in the order of their `meta_<n>` columns. */
export function metadataKeys(dimensions: readonly Dimension[]): string[] {
  return dimensions.filter(isMetadataDimension).map(metadataKeyOf);
}

/** The SQL of one query (see the module doc). */
export function eventsSql(query: EventsQuery): string {
  const keys = metadataKeys(query.dimensions);
  // Only the endpoint dimension reads a call's mode and endpoint (`endpointOf`).
  const byEndpoint = query.dimensions.includes("endpoint");
  const read = Object.fromEntries(
    Object.entries(columnTypes).filter(([name]) => name !== "mode" && name !== "endpoint"),
  );
  const types = {
    ...(byEndpoint ? columnTypes : read),
    ...(keys.length > 0 ? { metadata: "JSON" } : {}),
  };
  const columns = Object.entries(types)
    .map(([name, type]) => `${name}: '${type}'`)
    .join(", ");
  const scaleA = 2 ** 40;
  const scaleB = 2 ** 56;
  const gamma = (1 + relativeAccuracy) / (1 - relativeAccuracy);
  const { since, until } = query.window;
  const inFilters = [
    query.gateways.length > 0 ? `gateway IN (${query.gateways.map(sqlText).join(", ")})` : "",
    query.routes.length > 0 ? `route IN (${query.routes.map(sqlText).join(", ")})` : "",
  ].filter((clause) => clause !== "");
  const inWindow = [
    since === null ? "" : `t >= ${since}`,
    until === null ? "" : `t < ${until}`,
  ].filter((clause) => clause !== "");
  const count = (name: string, max: number) =>
    `(${name} IS NULL OR (${name} >= 0 AND ${name} <= ${max} AND ${name} = floor(${name})))`;
  const valid = [
    `t IS NOT NULL AND t >= ${eventLimits.minTime} AND t < ${eventLimits.maxTime}`,
    `gateway IS NOT NULL AND route IS NOT NULL AND ${byEndpoint ? "mode IS NOT NULL AND " : ""}status IS NOT NULL AND ok IS NOT NULL`,
    `latencyMs IS NOT NULL AND latencyMs >= 0 AND latencyMs <= ${eventLimits.maxLatencyMs}`,
    count("tokensIn", eventLimits.maxTokens),
    count("tokensOut", eventLimits.maxTokens),
    `(cost IS NULL OR (cost >= 0 AND cost <= ${eventLimits.maxCost} AND cost_b = floor(cost_b)))`,
  ].join(" AND ");
  const bucket = query.bucketMs === null ? "0" : `(t // ${query.bucketMs}) * ${query.bucketMs}`;
  const metadata = keys.map(
    (key, index) =>
      `json_extract(metadata, ${sqlText(`$.${JSON.stringify(key)}`)}) AS meta_${index + 1}`,
  );
  const signature = [
    ...signatureColumns
      .filter((name) => !name.endsWith("_known"))
      .map((name) =>
        byEndpoint || (name !== "mode" && name !== "endpoint")
          ? name
          : `${name === "mode" ? "'universal'" : "NULL::VARCHAR"} AS ${name}`,
      ),
    "tokensIn IS NOT NULL AS tokens_in_known",
    "tokensOut IS NOT NULL AS tokens_out_known",
    ...metadata,
  ];
  return `WITH parsed AS (
  SELECT *, epoch_ms(time) AS t,
    cost * ${scaleA}.0 AS cost_x, (cost * ${scaleA}.0 - floor(cost * ${scaleA}.0)) * ${scaleB}.0 AS cost_b
  FROM read_ndjson(${sqlText(query.path)}, columns = {${columns}}, format = 'newline_delimited', timestampformat = '%Y-%m-%dT%H:%M:%S.%gZ',
    maximum_object_size = ${maxLineBytes})
), classed AS (
  SELECT *, CASE WHEN NOT coalesce(${valid}, false) THEN 3
    ${inFilters.length > 0 ? `WHEN NOT (${inFilters.join(" AND ")}) THEN 1` : ""}
    ${inWindow.length > 0 ? `WHEN NOT (${inWindow.join(" AND ")}) THEN 2` : ""}
    ELSE 0 END AS class
  FROM parsed
)
SELECT ${signature.join(", ")}, class,
  CASE WHEN class = 0 THEN ${bucket} ELSE 0 END AS bucket,
  count(*) AS calls,
  sum(TRY_CAST(tokensIn AS BIGINT)) AS tokens_in,
  sum(TRY_CAST(tokensOut AS BIGINT)) AS tokens_out,
  sum(TRY_CAST(floor(cost_x) AS BIGINT)) AS cost_a,
  sum(TRY_CAST(cost_b AS BIGINT)) AS cost_b,
  min(t) AS first_time,
  max(t) AS last_time,
  histogram(CASE WHEN latencyMs >= 0.001::DOUBLE THEN ceil(ln(latencyMs) / ln(${gamma}::DOUBLE))::INTEGER ELSE ${zeroBucket} END) AS latency
FROM classed
GROUP BY ALL`;
}
