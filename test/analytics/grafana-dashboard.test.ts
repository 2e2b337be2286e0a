/**
 * The Grafana dashboard (`dashboards/step-rates.json`) over the Analytics Engine dataset: the
 * checked-in file is the module's output, and each of its queries, with the Altinity plugin's
 * macros filled in as the plugin does (`$from` / `$to` in seconds, `$interval` the bucket in
 * seconds) and the `$dataset` variable, runs on the SQL API fake (real SQL on DuckDB, only the
 * functions Cloudflare documents) and returns the report's numbers for the same calls. Cloudflare:
 * "We recommend the use of the Altinity plugin for Clickhouse for querying Workers Analytics
 * Engine from Grafana."
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dashboardQueries,
  dashboardSteps,
  stepRatesDashboardText,
} from "../../src/analytics/grafana-dashboard.ts";
import { buildReport, type Report } from "../../src/analytics/report.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { createFakeSqlApi, type FakeSqlApi } from "../../tools/fakes/analytics-engine-sql-api.ts";
import { asStored, callPointOf } from "../../tools/fakes/call-points.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const accountId = "0123456789abcdef0123456789abcdef";
const start = Date.parse("2026-05-01T00:00:00Z");
const hour = 3_600_000;
// Whole seconds and whole ms, as Analytics Engine keeps them, so both sides count the same calls.
const events = [...generateEvents({ count: 1_500, seed: 11, start, spanMs: 6 * hour })].map(
  asStored,
);
let sql: FakeSqlApi;
let report: Report;

beforeAll(async () => {
  sql = createFakeSqlApi({ accountId, apiToken: "token", dataset: "stepwise_events" });
  await sql.load(
    events.map((event) => ({ time: Date.parse(event.time), point: callPointOf(event) })),
  );
  report = await buildReport(
    {
      kind: "events",
      name: "events",
      stats: { records: events.length, malformed: 0, malformedSamples: [] },
      async *events() {
        yield* events;
      },
    },
    { dimensions: ["gateway", "route"], bucketMs: hour },
  );
}, 60_000);

afterAll(() => sql?.close());

/** The panel's SQL with the plugin's macros and the dataset variable filled in. */
function expand(query: string, intervalSeconds = 3600): string {
  return query
    .replaceAll("$from", String(start / 1000))
    .replaceAll("$to", String((start + 6 * hour) / 1000))
    .replaceAll("$interval", String(intervalSeconds))
    .replaceAll("$dataset", "stepwise_events")
    .concat("\nFORMAT JSONEachRow");
}

async function run(id: string): Promise<Array<Record<string, string | number>>> {
  const query = dashboardQueries.find((entry) => entry.id === id);
  if (!query) throw new Error(`no panel ${id}`);
  const response = await sql.fetch(`${sql.baseURL}/accounts/${accountId}/analytics_engine/sql`, {
    method: "POST",
    headers: { authorization: "Bearer token" },
    body: expand(query.sql),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return text
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

const number = (value: string | number | undefined) => Number(value ?? Number.NaN);

describe("the Grafana dashboard", () => {
  it("is checked in as the module builds it, with the Altinity ClickHouse data source", () => {
    const text = readFileSync(path.join(repoRoot, "dashboards/step-rates.json"), "utf8");
    expect(text).toBe(stepRatesDashboardText());
    const dashboard = JSON.parse(text);
    expect(dashboard.panels).toHaveLength(dashboardQueries.length);
    for (const panel of dashboard.panels) {
      expect(panel.datasource.type).toBe("vertamedia-clickhouse-datasource");
      expect(panel.targets[0].query).toContain("$from");
    }
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8"));
    expect(manifest.files).toContain("dashboards/");
  });

  it("gives each route the report's calls, rates, step shares, cost and p95", async () => {
    const rows = await run("routes");
    expect(rows.map((row) => row.route)).toEqual(report.routes.map((row) => row.key.route));
    for (const row of rows) {
      const expected = report.routes.find((entry) => entry.key.route === row.route)?.figures;
      if (!expected) throw new Error(`no route ${row.route}`);
      expect(number(row.calls)).toBe(expected.calls);
      expect(number(row.success_rate)).toBeCloseTo(expected.successRate ?? 0, 12);
      expect(number(row.availability)).toBeCloseTo(expected.availability ?? 0, 12);
      expect(number(row.fallback_rate)).toBeCloseTo(expected.fallbackRate ?? 0, 12);
      for (const step of dashboardSteps) {
        expect(number(row[`step_${step}`])).toBeCloseTo(
          (expected.steps[String(step)] ?? 0) / expected.calls,
          12,
        );
      }
      expect(number(row.none)).toBeCloseTo((expected.steps.none ?? 0) / expected.calls, 12);
      expect(number(row.cost)).toBeCloseTo(expected.cost, 9);
      expect(number(row.p95_latency_ms)).toBe(expected.p95LatencyMs);
    }
  });

  it("gives each route and hour the report's step shares, fallback rate, availability and cost", async () => {
    const expected = new Map<
      string,
      NonNullable<Report["series"]["points"][number]["groups"]>[number]["figures"]
    >();
    for (const point of report.series.points) {
      for (const group of point.groups ?? []) {
        expected.set(`${Date.parse(point.start)} ${group.key.route}`, group.figures);
      }
    }
    const check = async (
      id: string,
      pick: (figures: NonNullable<ReturnType<typeof expected.get>>) => Record<string, number>,
    ) => {
      const rows = await run(id);
      expect(rows).toHaveLength(expected.size);
      for (const row of rows) {
        const figures = expected.get(`${number(row.t)} ${row.route}`);
        if (!figures) throw new Error(`no bucket ${row.t} ${row.route}`);
        for (const [name, value] of Object.entries(pick(figures))) {
          expect(number(row[name]), `${id} ${name} at ${row.t} ${row.route}`).toBeCloseTo(value, 9);
        }
      }
    };
    await check("step-share", (figures) => ({
      step_0: (figures.steps["0"] ?? 0) / figures.calls,
      step_1: (figures.steps["1"] ?? 0) / figures.calls,
      none: (figures.steps.none ?? 0) / figures.calls,
    }));
    await check("fallback-rate", (figures) => ({ fallback_rate: figures.fallbackRate ?? 0 }));
    await check("availability", (figures) => ({ availability: figures.availability ?? 0 }));
    await check("cost", (figures) => ({ cost: figures.cost }));
  });

  it("counts the calls each model served per bucket", async () => {
    const rows = await run("served-by-model");
    const total = rows.reduce((sum, row) => sum + number(row.calls), 0);
    expect(total).toBe(events.length);
    const perModel = new Map<string, number>();
    for (const row of rows)
      perModel.set(String(row.model), (perModel.get(String(row.model)) ?? 0) + number(row.calls));
    const fromEvents = new Map<string, number>();
    for (const event of events as CallEvent[])
      fromEvents.set(event.model ?? "", (fromEvents.get(event.model ?? "") ?? 0) + 1);
    expect(perModel).toEqual(fromEvents);
  });
});
