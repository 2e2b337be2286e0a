/**
 * @module
 * Report renderers: terminal table (default), JSON, CSV and a self-contained HTML page.
 */
export { csvColumns, renderCsv } from "./csv.ts";
export { renderHtml } from "./html.ts";
export { renderJson } from "./json.ts";
export { type ChartBar, chartBars, maxChartBars, renderChart } from "./svg-chart.ts";
export { renderGroupsTable, renderTable } from "./table.ts";
