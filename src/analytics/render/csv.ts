/**
 * @module
 * CSV output, one row per figure set in long format, for spreadsheets and SQL loaders.
 *
 * Columns: `period` (`current` or `baseline` with `--compare`), `scope` (`total`, `route`,
 * `group`, `bucket` for a bucket's totals, `bucket-group` for a group inside a bucket),
 * `bucket_start`/`bucket_end` (empty for the whole window), the five dimensions (empty when not
 * grouped by; step `none` when no step served) and any `metadata.<key>` dimensions, then the
 * figures (rates as fractions at full precision, empty when undefined; cost in USD rounded to
 * {@link costDecimals} places, so sums carry no float noise). Bucket rows are written only with
 * an explicit `--bucket`.
 *
 * Client steering (`steering.ts`) follows in the next columns: `route` rows and the `total` row
 * carry calls that skipped or demoted a step and the hedge figures (empty where the events
 * recorded none: unknown, not 0); `skipped-step` and `demoted-step` rows (after the route rows)
 * name a steered step in the dimension columns, with `steered_calls` and `steered_share` (of the
 * route's calls), once for all reasons (`reason` empty) and once per reason; their figure columns
 * are empty.
 *
 * The explanation (`explain.ts`, `explain-csv.ts`) comes last: `step-outcome` rows (a route's
 * step, with the calls served and the failures by reason) and `fallback-cost` rows (a route's, and
 * the total with empty dimensions), after the steered-step rows.
 *
 * Spreadsheet-safe (`spreadsheet-cell.ts`): a text cell that starts with `=`, `+`, `-`, `@`, a tab
 * or a carriage return is quoted with a leading `'` (so no sheet runs it as a formula), except a
 * plain model id such as `@cf/meta/llama-3.1-8b-instruct`, which stays as the config spells it;
 * control characters are written as visible escapes.
 */
import { allDimensions, type GroupKey, type GroupRow } from "../aggregate.ts";
import { isMetadataDimension } from "../dimensions.ts";
import type { Figures } from "../figures.ts";
import type { Report } from "../report.ts";
import { emptyExplainCells, explainCsvColumns, explainRows } from "./explain-csv.ts";
import { keyValue } from "./format.ts";
import { spreadsheetCell } from "./spreadsheet-cell.ts";
import { steeringCells, steeringCsvColumns, steeringStepRows } from "./steering-csv.ts";

/** The CSV header, in column order. */
export const csvColumns = [
  "period",
  "scope",
  "bucket_start",
  "bucket_end",
  ...allDimensions,
  "calls",
  "share",
  "success_rate",
  "availability",
  "fallback_rate",
  "p50_latency_ms",
  "p95_latency_ms",
  "p99_latency_ms",
  "latency_exact",
  "tokens_in",
  "tokens_out",
  "cost",
  "cache_hit_rate",
  "ok",
  "answered",
  "fallbacks",
  "cache_hits",
  "cache_lookups",
  "budget_hits",
  ...steeringCsvColumns,
  ...explainCsvColumns,
] as const;

/** Figure columns (between the dimensions and the steering columns). */
const figureColumnCount =
  csvColumns.length -
  4 -
  allDimensions.length -
  steeringCsvColumns.length -
  explainCsvColumns.length;

/** Decimal places of cost cells (a millionth of a cent). */
export const costDecimals = 8;

/** Renders the report as CSV (header line first, `\n` line endings). */
export function renderCsv(report: Report): string {
  const metadata = report.dimensions.filter(isMetadataDimension);
  const dimensions = [...allDimensions, ...metadata];
  const header = [
    ...csvColumns.slice(0, 4),
    ...dimensions,
    ...csvColumns.slice(4 + allDimensions.length),
  ];
  const lines = [header.map(spreadsheetCell).join(",")];
  const add = (
    period: string,
    scope: string,
    bucket: [string, string] | null,
    key: GroupKey,
    figures: Figures | null,
    steering: ReadonlyArray<string | number | null> = steeringCells(null, null),
    explain: ReadonlyArray<string | number | null> = emptyExplainCells(),
  ) => {
    const cells = [
      period,
      scope,
      bucket?.[0] ?? "",
      bucket?.[1] ?? "",
      ...dimensions.map((dimension) => keyValue(key, dimension)),
      ...figureCells(figures),
      ...steering,
      ...explain,
    ];
    lines.push(cells.map(spreadsheetCell).join(","));
  };
  const addRows = (
    period: string,
    scope: string,
    bucket: [string, string] | null,
    rows: GroupRow[],
  ) => {
    for (const row of rows) add(period, scope, bucket, row.key, row.figures);
  };
  const { steering } = report;
  add("current", "total", null, {}, report.totals, steeringCells(null, steering.totals));
  report.routes.forEach((row, index) => {
    const routeSteering = steering.routes[index] ?? null;
    add("current", "route", null, row.key, row.figures, steeringCells(null, routeSteering));
  });
  for (const { scope, key, reason, count } of steeringStepRows(steering)) {
    add("current", scope, null, key, null, steeringCells({ reason, count }, null));
  }
  for (const { scope, key, cells } of explainRows(report.explanation)) {
    add("current", scope, null, key, null, steeringCells(null, null), cells);
  }
  addRows("current", "group", null, report.groups);
  if (!report.series.auto) {
    for (const point of report.series.points) {
      const bucket: [string, string] = [point.start, point.end];
      add("current", "bucket", bucket, {}, point.figures);
      addRows("current", "bucket-group", bucket, point.groups ?? []);
    }
  }
  if (report.comparison) {
    add("baseline", "total", null, {}, report.comparison.baseline.totals);
    addRows("baseline", "group", null, report.comparison.baseline.groups);
  }
  return `${lines.join("\n")}\n`;
}

function figureCells(figures: Figures | null): Array<string | number | boolean | null> {
  if (figures === null) return Array.from({ length: figureColumnCount }, () => null);
  return [
    figures.calls,
    figures.share,
    figures.successRate,
    figures.availability,
    figures.fallbackRate,
    figures.p50LatencyMs,
    figures.p95LatencyMs,
    figures.p99LatencyMs,
    figures.latencyExact,
    figures.tokensIn,
    figures.tokensOut,
    Number(figures.cost.toFixed(costDecimals)),
    figures.cacheHitRate,
    figures.ok,
    figures.answered,
    figures.fallbacks,
    figures.cacheHits,
    figures.cacheLookups,
    figures.budgetHits,
  ];
}
