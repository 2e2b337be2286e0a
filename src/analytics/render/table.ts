/**
 * @module
 * The terminal report (the default output): a header with the source, window and malformed
 * lines, the totals, a per-route table with availability and step shares, the client's steering
 * (skipped and demoted steps, hedges: `steering-table.ts`), the per-group table, the steps of
 * each route with their failure reasons and the cost of fallback (`explain-table.ts`),
 * the time series (with `--bucket`), the comparison (with `--compare`) and met thresholds.
 */
import pc from "picocolors";
import type { GroupRow } from "../aggregate.ts";
import type { Changes } from "../compare.ts";
import type { Figures } from "../figures.ts";
import type { Report } from "../report.ts";
import { type Cell, type Column, renderColumns } from "./columns.ts";
import { explainSections } from "./explain-table.ts";
import {
  dimensionTitle,
  dollars,
  type FigureColumn,
  figureColumnsOf,
  integer,
  keyValue,
  milliseconds,
  percent,
  pointsChange,
  relativeChange,
  stepKeysOf,
  stepLabel,
  visibleControls,
} from "./format.ts";
import { steeringSections } from "./steering-table.ts";

/** Renders the report as aligned, coloured text for a terminal. */
export function renderTable(report: Report): string {
  const sections = [
    header(report),
    totalsLine(report.totals),
    routesTable(report),
    steeringSections(report),
    groupsTable(report),
    explainSections(report),
  ];
  if (!report.series.auto) sections.push(seriesTable(report));
  if (report.comparison) sections.push(comparisonTable(report));
  // Crossed thresholds are reported once, on stderr, by the caller (with exit code 1).
  if (report.thresholds.checked.length > 0 && report.thresholds.breaches.length === 0) {
    sections.push(pc.green(`✔ ${report.thresholds.checked.length} threshold(s) met`));
  }
  return `${sections.filter((section) => section !== "").join("\n\n")}\n`;
}

/** Only the per-group table (e.g. a second grouping of the same calls). */
export function renderGroupsTable(report: Report): string {
  return `${groupsTable(report)}\n`;
}

function header(report: Report): string {
  const since = report.window.since ?? report.firstEvent ?? "—";
  const until = report.window.until ?? report.lastEvent ?? "—";
  const lines = [
    `${pc.bold("Step rates")} ${pc.dim("·")} ${visibleControls(report.source.name)} ${pc.dim(`(${report.source.kind})`)}`,
    pc.dim(`window ${since} → ${until} · ${integer(report.counted)} calls counted`),
  ];
  if (report.source.bytesFetched !== undefined) {
    const kilobytes = (report.source.bytesFetched / 1000).toFixed(1);
    lines.push(
      pc.dim(
        `${report.source.requests ?? 0} API requests, ${kilobytes} kB fetched (aggregated at the source)`,
      ),
    );
  }
  const skipped: string[] = [];
  if (report.outsideWindow > 0) skipped.push(`${integer(report.outsideWindow)} outside the window`);
  if (report.filteredOut > 0) skipped.push(`${integer(report.filteredOut)} filtered out`);
  if (skipped.length > 0) lines.push(pc.dim(`skipped: ${skipped.join(", ")}`));
  if (report.source.malformed > 0) {
    const samples = report.source.malformedSamples
      .map((sample) => `line ${sample.line}: ${visibleControls(sample.reason)}`)
      .join("\n  ");
    lines.push(
      pc.yellow(
        `${integer(report.source.malformed)} malformed record(s) skipped, first ones:\n  ${samples}`,
      ),
    );
  }
  return lines.join("\n");
}

function totalsLine(totals: Figures): string {
  return [
    `${pc.bold("Totals")}  calls ${integer(totals.calls)}`,
    `success ${percent(totals.successRate)}`,
    `availability ${percent(totals.availability)}`,
    `fallback ${percent(totals.fallbackRate)}`,
    `p50 ${milliseconds(totals.p50LatencyMs)} ms`,
    `p95 ${milliseconds(totals.p95LatencyMs)} ms`,
    `p99 ${milliseconds(totals.p99LatencyMs)} ms`,
    `tokens ${integer(totals.tokensIn)} in / ${integer(totals.tokensOut)} out`,
    `cost ${dollars(totals.cost)}`,
    `cache hits ${percent(totals.cacheHitRate)}`,
  ].join(pc.dim(" · "));
}

function routesTable(report: Report): string {
  if (report.routes.length === 0) return "";
  const steps = stepKeysOf(report.routes.map((row) => row.figures.steps));
  const columns: Column[] = [
    { title: "gateway" },
    { title: "route" },
    { title: "calls", align: "right" },
    { title: "success", align: "right" },
    { title: "availability", align: "right" },
    { title: "fallback", align: "right" },
    ...steps.map((step): Column => ({ title: stepLabel(step), align: "right" })),
  ];
  const rows = report.routes.map((row): Cell[] => [
    keyValue(row.key, "gateway"),
    keyValue(row.key, "route"),
    integer(row.figures.calls),
    percent(row.figures.successRate),
    percent(row.figures.availability),
    percent(row.figures.fallbackRate),
    ...steps.map((step) => percent((row.figures.steps[step] ?? 0) / row.figures.calls)),
  ]);
  return [
    pc.bold("Routes (step share of each route's calls)"),
    ...renderColumns(columns, rows),
  ].join("\n");
}

function figureTableColumns(figureColumns: readonly FigureColumn[]): Column[] {
  return figureColumns.map(({ title }) => ({ title, align: "right" }));
}

function figureCells(figureColumns: readonly FigureColumn[], figures: Figures): Cell[] {
  return figureColumns.map((column) => column.text(figures));
}

function groupsTable(report: Report): string {
  if (report.groups.length === 0) return pc.dim("No calls in the window.");
  const figureColumns = figureColumnsOf(report.totals);
  const columns: Column[] = [
    ...report.dimensions.map(
      (dimension): Column => ({
        title: dimensionTitle(dimension),
        align: dimension === "step" ? "right" : "left",
      }),
    ),
    ...figureTableColumns(figureColumns),
  ];
  const keyCells = (row: GroupRow) =>
    report.dimensions.map((dimension) => keyValue(row.key, dimension));
  const rows: Cell[][] = report.groups.map((row) => [
    ...keyCells(row),
    ...figureCells(figureColumns, row.figures),
  ]);
  rows.push([
    { text: "total", color: pc.bold },
    ...report.dimensions.slice(1).map(() => ""),
    ...figureCells(figureColumns, report.totals),
  ]);
  const title = `By ${report.dimensions.join(" · ")}`;
  return [pc.bold(title), ...renderColumns(columns, rows)].join("\n");
}

function seriesTable(report: Report): string {
  const points = report.series.points;
  const steps = stepKeysOf(points.map((point) => point.figures.steps));
  const columns: Column[] = [
    { title: `${report.series.bucket} bucket (UTC)` },
    { title: "calls", align: "right" },
    { title: "availability", align: "right" },
    { title: "fallback", align: "right" },
    { title: "p95 ms", align: "right" },
    ...steps.map((step): Column => ({ title: stepLabel(step), align: "right" })),
  ];
  const rows = points.map((point): Cell[] => [
    point.start,
    integer(point.figures.calls),
    percent(point.figures.availability),
    percent(point.figures.fallbackRate),
    milliseconds(point.figures.p95LatencyMs),
    ...steps.map((step) => percent((point.figures.steps[step] ?? 0) / point.figures.calls)),
  ]);
  return [
    pc.bold(`Per ${report.series.bucket} (step share of the bucket's calls)`),
    ...renderColumns(columns, rows),
  ].join("\n");
}

function comparisonTable(report: Report): string {
  const comparison = report.comparison;
  if (!comparison) return "";
  const columns: Column[] = [
    { title: "group" },
    { title: "calls before", align: "right" },
    { title: "calls now", align: "right" },
    { title: "calls Δ", align: "right" },
    { title: "success Δ", align: "right" },
    { title: "availability Δ", align: "right" },
    { title: "fallback Δ", align: "right" },
    { title: "p95 Δ", align: "right" },
    { title: "cost Δ", align: "right" },
  ];
  const row = (label: string, changes: Changes): Cell[] => [
    label,
    integer(changes.calls.baseline ?? 0),
    integer(changes.calls.current ?? 0),
    relativeChange(changes.calls.relative),
    colored(pointsChange(changes.successRate.delta), changes.successRate.delta, true),
    colored(pointsChange(changes.availability.delta), changes.availability.delta, true),
    colored(pointsChange(changes.fallbackRate.delta), changes.fallbackRate.delta, false),
    colored(relativeChange(changes.p95LatencyMs.relative), changes.p95LatencyMs.delta, false),
    relativeChange(changes.cost.relative),
  ];
  const rows = comparison.groups.map((group) =>
    row(
      report.dimensions.map((dimension) => keyValue(group.key, dimension)).join(" / "),
      group.changes,
    ),
  );
  rows.push(row("total", comparison.totals));
  const window = `${comparison.baseline.since} → ${comparison.baseline.until}`;
  return [
    pc.bold(`Change vs ${window} (${integer(comparison.baseline.counted)} calls)`),
    ...renderColumns(columns, rows),
  ].join("\n");
}

function colored(text: string, delta: number | null, higherIsBetter: boolean): Cell {
  if (delta === null || delta === 0) return text;
  const better = higherIsBetter ? delta > 0 : delta < 0;
  return { text, color: better ? pc.green : pc.red };
}
