/**
 * @module
 * `--html`: one self-contained page (inline CSS, inline SVG charts, no script, no network —
 * a Content-Security-Policy forbids any fetch): summary figures, the cost and availability chart,
 * a chart per route of the provider/models that served (`route-charts.ts`), and the route, steps
 * with failure reasons and cost of fallback (`explain-html.ts`), client steering
 * (`steering-html.ts`), group, series and comparison tables. Every figure cell carries `data-figure` and the raw `data-value`.
 */
import type { Changes } from "../compare.ts";
import type { Figures } from "../figures.ts";
import type { Report } from "../report.ts";
import { escapeHtml } from "./escape.ts";
import { explainTables, routeCharts } from "./explain-html.ts";
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
import { type CellSpec, cell, keyCells, table } from "./html-parts.ts";
import { steeringTables } from "./steering-html.ts";
import { type ChartBar, chartBars, renderChart } from "./svg-chart.ts";

const style = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1240px;padding:0 12px;color:#212529;background:#fff}
h1{font-size:22px;margin:0 0 4px;overflow-wrap:anywhere}h2{font-size:16px;margin:28px 0 8px}
.meta{color:#6c757d;margin:0 0 16px;overflow-wrap:anywhere}.warn{color:#a61e4d;overflow-wrap:anywhere}.ok{color:#2b8a3e}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{border:1px solid #dee2e6;border-radius:8px;padding:10px 14px;min-width:120px}
.card .label{color:#6c757d;font-size:12px}.card .value{font-size:20px;font-weight:600}
.table-wrap{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:12px;font-variant-numeric:tabular-nums}
th,td{padding:3px 5px;border-bottom:1px solid #e9ecef}
td.num{white-space:nowrap}td.key{overflow-wrap:break-word}
th{text-align:left;background:#f8f9fa;font-weight:600;vertical-align:bottom}td.num,th.num{text-align:right}
tr.total td{font-weight:600;border-top:2px solid #adb5bd}
figure{margin:0}.chart{max-width:100%;height:auto;display:block}.chart .grid{stroke:#e9ecef}.chart .tick{font-size:11px;fill:#6c757d}
.chart .panel-title{font-size:12px;font-weight:600;fill:#495057}.chart .axis{stroke:#adb5bd}.chart .axis-title{font-size:11px;fill:#495057}
.chart .cost-bar{fill:#495057}.cost-swatch{background:#495057}.route-figure{margin:0 0 12px}.reason-bar{display:block}
.chart .availability-line{fill:none;stroke:#1c7ed6;stroke-width:2}.chart .availability-point{fill:#1c7ed6}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:6px 0 0 56px;font-size:12px;color:#495057}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}
.line-swatch{display:inline-block;width:14px;height:0;border-top:2px solid #1c7ed6;margin-right:4px;vertical-align:middle}
.better{color:#2b8a3e}.worse{color:#c92a2a}
`;

/** Renders the report as a self-contained HTML page. */
export function renderHtml(report: Report): string {
  const bars = chartBars(report.series.points, report.series.bucketMs);
  const title = `Step rates · ${visibleControls(report.source.name)}`;
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    meta(report),
    cards(report.totals),
    `<h2>Cost and availability over time (${escapeHtml(report.series.bucket)} buckets)</h2>`,
    chartFigure(bars),
    routeCharts(report, frameOf(bars)),
    routesTable(report),
    explainTables(report),
    steeringTables(report),
    groupsTable(report),
    report.series.auto ? "" : seriesTable(report),
    comparisonTable(report),
    thresholds(report),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
${body.filter((part) => part !== "").join("\n")}
</body>
</html>
`;
}

/** The main chart with its legend right below it (cost bars and the availability line). */
function chartFigure(bars: readonly ChartBar[]): string {
  const legend =
    bars.length > 0
      ? `<figcaption class="legend"><span class="legend-item" data-series="cost"><span class="swatch cost-swatch"></span>cost</span><span class="legend-item" data-series="availability"><span class="line-swatch"></span>availability</span></figcaption>`
      : "";
  return `<figure id="chart">${renderChart(bars)}${legend}</figure>`;
}

/** The time range and bar size of the main chart, which the route charts follow. */
function frameOf(bars: readonly ChartBar[]): { first: number; end: number; size: number } | null {
  const first = bars[0];
  const last = bars.at(-1);
  if (!first || !last) return null;
  return { first: first.start, end: last.end, size: first.end - first.start };
}

function meta(report: Report): string {
  const since = report.window.since ?? report.firstEvent ?? "—";
  const until = report.window.until ?? report.lastEvent ?? "—";
  const lines = [
    `<p class="meta" id="window">${escapeHtml(report.source.kind)} source · window ${escapeHtml(since)} → ${escapeHtml(until)} · <span data-figure="counted" data-value="${report.counted}">${integer(report.counted)}</span> calls counted · generated ${escapeHtml(report.generatedAt)}</p>`,
  ];
  if (report.source.malformed > 0) {
    const samples = report.source.malformedSamples
      .map(
        (sample) => `<li>line ${sample.line}: ${escapeHtml(visibleControls(sample.reason))}</li>`,
      )
      .join("");
    lines.push(
      `<div class="warn" id="malformed"><span data-figure="malformed" data-value="${report.source.malformed}">${integer(report.source.malformed)}</span> malformed record(s) skipped; the first ones:<ul>${samples}</ul></div>`,
    );
  }
  return lines.join("\n");
}

function cards(totals: Figures): string {
  const card = (label: string, figure: keyof Figures, text: string) =>
    `<div class="card"><div class="label">${label}</div><div class="value" data-figure="${figure}" data-value="${escapeHtml(String(totals[figure]))}">${escapeHtml(text)}</div></div>`;
  return `<div class="cards" id="totals">${[
    card("calls", "calls", integer(totals.calls)),
    card("availability", "availability", percent(totals.availability)),
    card("success rate", "successRate", percent(totals.successRate)),
    card("fallback rate", "fallbackRate", percent(totals.fallbackRate)),
    card("p95 latency", "p95LatencyMs", `${milliseconds(totals.p95LatencyMs)} ms`),
    card("cost", "cost", dollars(totals.cost)),
    card("cache hit rate", "cacheHitRate", percent(totals.cacheHitRate)),
  ].join("")}</div>`;
}

function figureSpecs(figureColumns: readonly FigureColumn[], figures: Figures): CellSpec[] {
  return figureColumns.map(({ figure, text }) => ({
    figure,
    value: figures[figure] as CellSpec["value"],
    text: text(figures),
  }));
}

function routesTable(report: Report): string {
  const steps = stepKeysOf(report.routes.map((row) => row.figures.steps));
  const rows = report.routes.map((row) => {
    const shares = steps.map((step) => {
      const share = (row.figures.steps[step] ?? 0) / row.figures.calls;
      return `<td class="num" data-figure="step-share" data-step="${escapeHtml(step)}" data-value="${share}">${percent(share)}</td>`;
    });
    return `<tr>${keyCells(row, ["gateway", "route"])}${cell({ figure: "calls", value: row.figures.calls, text: integer(row.figures.calls) })}${cell({ figure: "successRate", value: row.figures.successRate, text: percent(row.figures.successRate) })}${cell({ figure: "availability", value: row.figures.availability, text: percent(row.figures.availability) })}${cell({ figure: "fallbackRate", value: row.figures.fallbackRate, text: percent(row.figures.fallbackRate) })}${shares.join("")}</tr>`;
  });
  const stepHeads = steps.map((step) => `#${stepLabel(step)}`);
  const head = [
    "gateway",
    "route",
    "#calls",
    "#success",
    "#availability",
    "#fallback",
    ...stepHeads,
  ];
  return table("routes", "Routes: availability and step share of each route's calls", head, rows);
}

function groupsTable(report: Report): string {
  const figureColumns = figureColumnsOf(report.totals);
  const head = [
    ...report.dimensions.map((dimension) =>
      dimension === "step" ? "#step" : dimensionTitle(dimension),
    ),
    ...figureColumns.map(({ title }) => `#${title}`),
  ];
  const rows = report.groups.map(
    (row) =>
      `<tr>${keyCells(row, report.dimensions)}${figureSpecs(figureColumns, row.figures).map(cell).join("")}</tr>`,
  );
  rows.push(
    `<tr class="total"><td colspan="${report.dimensions.length}">total</td>${figureSpecs(figureColumns, report.totals).map(cell).join("")}</tr>`,
  );
  return table("groups", `By ${report.dimensions.join(" · ")}`, head, rows);
}

function seriesTable(report: Report): string {
  const figureColumns = figureColumnsOf(report.totals);
  const head = [
    `${report.series.bucket} bucket (UTC)`,
    ...figureColumns.map(({ title }) => `#${title}`),
  ];
  const rows = report.series.points.map(
    (point) =>
      `<tr><td data-dimension="bucket">${escapeHtml(point.start)}</td>${figureSpecs(figureColumns, point.figures).map(cell).join("")}</tr>`,
  );
  return table("series", `Per ${report.series.bucket}`, head, rows);
}

function comparisonTable(report: Report): string {
  const comparison = report.comparison;
  if (!comparison) return "";
  const row = (label: string, changes: Changes, total: boolean) => {
    const delta = (figure: keyof Changes, text: string, higherIsBetter: boolean | null) => {
      const value = changes[figure].delta;
      const tone =
        value === null || value === 0 || higherIsBetter === null
          ? ""
          : value > 0 === higherIsBetter
            ? " better"
            : " worse";
      return `<td class="num${tone}" data-figure="${figure}-delta" data-value="${escapeHtml(String(value))}">${escapeHtml(text)}</td>`;
    };
    return `<tr${total ? ' class="total"' : ""}><td>${escapeHtml(label)}</td>${cell({ figure: "calls-baseline", value: changes.calls.baseline, text: integer(changes.calls.baseline ?? 0) })}${cell({ figure: "calls-current", value: changes.calls.current, text: integer(changes.calls.current ?? 0) })}${delta("calls", relativeChange(changes.calls.relative), null)}${delta("successRate", pointsChange(changes.successRate.delta), true)}${delta("availability", pointsChange(changes.availability.delta), true)}${delta("fallbackRate", pointsChange(changes.fallbackRate.delta), false)}${delta("p95LatencyMs", relativeChange(changes.p95LatencyMs.relative), false)}${delta("cost", relativeChange(changes.cost.relative), null)}</tr>`;
  };
  const rows = comparison.groups.map((group) =>
    row(
      report.dimensions.map((dimension) => keyValue(group.key, dimension)).join(" / "),
      group.changes,
      false,
    ),
  );
  rows.push(row("total", comparison.totals, true));
  const head = [
    "group",
    "#calls before",
    "#calls now",
    "#calls Δ",
    "#success Δ",
    "#availability Δ",
    "#fallback Δ",
    "#p95 Δ",
    "#cost Δ",
  ];
  return table(
    "comparison",
    `Change vs ${comparison.baseline.since} → ${comparison.baseline.until} (${integer(comparison.baseline.counted)} calls)`,
    head,
    rows,
  );
}

function thresholds(report: Report): string {
  const { checked, breaches } = report.thresholds;
  if (checked.length === 0) return "";
  if (breaches.length === 0)
    return `<p class="ok" id="thresholds">✔ ${checked.length} threshold(s) met</p>`;
  return `<div class="warn" id="thresholds"><h2>Thresholds crossed</h2><ul>${breaches.map((breach) => `<li data-metric="${escapeHtml(breach.metric)}">${escapeHtml(breach.message)}</li>`).join("")}</ul></div>`;
}
