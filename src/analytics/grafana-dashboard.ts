/**
 * @module
 * The Grafana dashboard over the companion Worker's Analytics Engine dataset
 * (`dashboards/step-rates.json`, shipped in the package), built here from the one column map of a
 * call point (`src/worker/analytics-schema.ts`) with the report's definitions (`figures.ts`), so
 * the dashboard and `stepwise report --source analytics-engine` read the same columns the same way:
 * calls `sum(_sample_interval)`; step share: calls served by that step / calls; fallback rate: step
 * ≥ 1 / calls; availability: ok, or a 4xx other than 408 and 429, / calls; success rate: ok /
 * calls; cost: the known costs (−1 is unpriced) summed; latency p95 nearest-rank weighted by
 * `_sample_interval`. Only points of the current schema version count.
 *
 * Cloudflare documents querying Analytics Engine from Grafana through the Altinity plugin for
 * ClickHouse (`vertamedia-clickhouse-datasource`) pointed at the SQL API; the queries use its
 * `$from`, `$to` (seconds) and `$interval` (the panel's bucket in seconds) macros, a `$dataset`
 * text variable (default `stepwise_events`), and only functions the SQL reference documents.
 * `npm run dashboard` writes the file; a test keeps it equal to this module's output and runs
 * every query against the SQL API fake.
 */
import {
  callPointSchemaVersion,
  callPointColumns as column,
  timestampColumn,
  sampleIntervalColumn as weight,
} from "../worker/analytics-schema.ts";

/** Steps the step-share panels show as their own series (later steps add up in `later`). */
export const dashboardSteps = [0, 1, 2] as const;

/** The Grafana data source plugin Cloudflare's docs recommend for Analytics Engine. */
export const dataSourceType = "vertamedia-clickhouse-datasource";

const where = `${timestampColumn} >= toDateTime($from) AND ${timestampColumn} < toDateTime($to) AND ${column.version} = ${callPointSchemaVersion}`;
// The bucket start in ms, what the plugin's time series want (as its `$timeSeries` macro gives);
// times 1000.0 so the product is a float in every dialect, never a 32-bit integer overflowing.
const bucket = `toUnixTimestamp(toStartOfInterval(${timestampColumn}, INTERVAL '$interval' SECOND)) * 1000.0`;
const calls = `sum(${weight})`;
const share = (condition: string) => `sum(if(${condition}, ${weight}, 0)) / ${calls}`;

/** The report's figures as SQL over one group of points. */
export const dashboardFigures = {
  calls,
  successRate: share(`${column.ok} = 1`),
  availability: share(
    `${column.ok} = 1 OR (${column.status} >= 400 AND ${column.status} < 500 AND ${column.status} != 408 AND ${column.status} != 429)`,
  ),
  fallbackRate: share(`${column.step} >= 1`),
  step: (index: number) => share(`${column.step} = ${index}`),
  laterSteps: share(`${column.step} > ${dashboardSteps.at(-1)}`),
  noStep: share(`${column.step} < 0`),
  cost: `sum(if(${column.cost} > 0, ${column.cost} * ${weight}, 0))`,
  p95LatencyMs: `quantileExactWeighted(0.95)(${column.latencyMs}, ${weight})`,
} as const;

/** One panel's query: its title, the SQL (with the plugin's macros) and the panel type. */
export interface DashboardQuery {
  readonly id: string;
  readonly title: string;
  readonly type: "timeseries" | "table";
  readonly unit: string;
  readonly sql: string;
}

const stepColumns = [
  ...dashboardSteps.map((index) => `${dashboardFigures.step(index)} AS step_${index}`),
  `${dashboardFigures.laterSteps} AS later`,
  `${dashboardFigures.noStep} AS none`,
];

const perRouteOverTime = (select: readonly string[]) =>
  [
    `SELECT ${bucket} AS t, ${column.route} AS route, ${select.join(", ")}`,
    "FROM $dataset",
    `WHERE ${where}`,
    "GROUP BY t, route",
    "ORDER BY t",
  ].join("\n");

/** Every query of the dashboard, in panel order. */
export const dashboardQueries: readonly DashboardQuery[] = [
  {
    id: "routes",
    title: "Routes over the time range (the report's Routes table)",
    type: "table",
    unit: "none",
    sql: [
      `SELECT ${column.gateway} AS gateway, ${column.route} AS route, ${dashboardFigures.calls} AS calls, ${dashboardFigures.successRate} AS success_rate, ${dashboardFigures.availability} AS availability, ${dashboardFigures.fallbackRate} AS fallback_rate, ${stepColumns.join(", ")}, ${dashboardFigures.cost} AS cost, ${dashboardFigures.p95LatencyMs} AS p95_latency_ms`,
      "FROM $dataset",
      `WHERE ${where}`,
      "GROUP BY gateway, route",
      "ORDER BY gateway, route",
    ].join("\n"),
  },
  {
    id: "step-share",
    title: "Step share per route (calls served by each step / the route's calls)",
    type: "timeseries",
    unit: "percentunit",
    sql: perRouteOverTime(stepColumns),
  },
  {
    id: "fallback-rate",
    title: "Fallback rate per route (served by step ≥ 1)",
    type: "timeseries",
    unit: "percentunit",
    sql: perRouteOverTime([`${dashboardFigures.fallbackRate} AS fallback_rate`]),
  },
  {
    id: "availability",
    title: "Availability per route (calls answered / calls made)",
    type: "timeseries",
    unit: "percentunit",
    sql: perRouteOverTime([`${dashboardFigures.availability} AS availability`]),
  },
  {
    id: "cost",
    title: "Cost per route (USD per bucket)",
    type: "timeseries",
    unit: "currencyUSD",
    sql: perRouteOverTime([`${dashboardFigures.cost} AS cost`]),
  },
  {
    id: "served-by-model",
    title: "Calls per serving model",
    type: "timeseries",
    unit: "short",
    sql: [
      `SELECT ${bucket} AS t, ${column.model} AS model, ${dashboardFigures.calls} AS calls`,
      "FROM $dataset",
      `WHERE ${where}`,
      "GROUP BY t, model",
      "ORDER BY t",
    ].join("\n"),
  },
];

/** The dashboard JSON Grafana imports (Dashboards → New → Import). */
export function stepRatesDashboard(): Record<string, unknown> {
  // Grafana's import input, filled in when the dashboard is imported (not a JavaScript template).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's placeholder syntax
  const dataSource = { type: dataSourceType, uid: "${DS_ANALYTICS_ENGINE}" };
  const panels = dashboardQueries.map((query, index) => ({
    id: index + 1,
    type: query.type,
    title: query.title,
    datasource: dataSource,
    gridPos: query.type === "table" ? { x: 0, y: 0, w: 24, h: 8 } : gridOf(index - 1),
    fieldConfig: {
      defaults: {
        unit: query.unit,
        ...(query.unit === "percentunit" ? { min: 0, max: 1 } : {}),
        ...(query.type === "timeseries"
          ? { custom: { drawStyle: query.id === "cost" ? "bars" : "line", fillOpacity: 20 } }
          : {}),
      },
      overrides: [],
    },
    targets: [
      {
        refId: "A",
        datasource: dataSource,
        dateTimeColDataType: timestampColumn,
        dateTimeType: "DATETIME",
        format: query.type === "table" ? "table" : "time_series",
        query: query.sql,
        rawQuery: true,
      },
    ],
  }));
  return {
    __inputs: [
      {
        name: "DS_ANALYTICS_ENGINE",
        label: "Workers Analytics Engine",
        description:
          "Altinity ClickHouse data source: URL https://api.cloudflare.com/client/v4/accounts/<account_id>/analytics_engine/sql, header Authorization: Bearer <token>",
        type: "datasource",
        pluginId: dataSourceType,
        pluginName: "Altinity plugin for ClickHouse",
      },
    ],
    title: "Stepwise step rates",
    uid: "stepwise-step-rates",
    description:
      "Step share, fallback rate, availability and cost per route from the companion Worker's Analytics Engine dataset, with the definitions of stepwise report.",
    tags: ["stepwise", "ai-gateway"],
    timezone: "utc",
    schemaVersion: 39,
    time: { from: "now-24h", to: "now" },
    refresh: "5m",
    templating: {
      list: [
        {
          name: "dataset",
          label: "Dataset",
          type: "textbox",
          query: "stepwise_events",
          current: { text: "stepwise_events", value: "stepwise_events" },
        },
      ],
    },
    panels,
  };
}

/** Two panels a row below the table. */
function gridOf(position: number): { x: number; y: number; w: number; h: number } {
  return { x: (position % 2) * 12, y: 8 + Math.floor(position / 2) * 8, w: 12, h: 8 };
}

/** The file's text: the dashboard as pretty JSON with a final newline. */
export function stepRatesDashboardText(): string {
  return `${JSON.stringify(stepRatesDashboard(), null, 2)}\n`;
}
