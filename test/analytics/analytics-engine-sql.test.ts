import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AnalyticsError,
  analyticsEngineSqlSource,
  buildReport,
  type Report,
  ThresholdError,
} from "../../src/analytics/index.ts";
import { reportCommand } from "../../src/cli/commands/report.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { createFakeSqlApi, type FakeSqlApi } from "../../tools/fakes/analytics-engine-sql-api.ts";
import { asStored, callPointOf } from "../../tools/fakes/call-points.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";
import {
  expectFiguresMatch,
  referenceFigures,
  referenceGroups,
  referenceWindow,
} from "./reference.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const apiToken = "test-analytics-token";
const start = Date.parse("2026-05-01T00:00:00Z");
const day = 86_400_000;
const fake: FakeSqlApi = createFakeSqlApi({ accountId, apiToken, dataset: "stepwise_events" });

/** Every 5th point is sampled at 1 in 3: it stands for three calls, as Analytics Engine says. */
const stored = [...generateEvents({ count: 4_000, seed: 11, start, spanMs: 2 * day })].map(
  asStored,
);
const planOf = (index: number) => (index % 3 === 0 ? "free" : "pro");
const weightOf = (index: number) => (index % 5 === 0 ? 3 : 1);
/** The calls the points stand for: what the report must count. */
const calls: Array<CallEvent & { plan: string }> = stored.flatMap((event, index) =>
  Array.from({ length: weightOf(index) }, () => ({ ...event, plan: planOf(index) })),
);

beforeAll(async () => {
  await fake.load(
    stored.map((event, index) => ({
      time: Date.parse(event.time),
      point: callPointOf(event, { plan: planOf(index) }),
      sampleInterval: weightOf(index),
    })),
  );
});
afterAll(() => fake.close());

const live = () =>
  analyticsEngineSqlSource({ accountId, apiToken, baseURL: fake.baseURL, fetch: fake.fetch });

function expectRowsMatch(
  rows: Report["groups"],
  events: readonly CallEvent[],
  dimensions: Parameters<typeof referenceGroups>[1],
  scope: number,
) {
  const expected = referenceGroups(events, dimensions);
  expect(rows.map((row) => JSON.stringify(row.key)).sort()).toEqual([...expected.keys()].sort());
  for (const row of rows) {
    expectFiguresMatch(
      row.figures,
      referenceFigures(expected.get(JSON.stringify(row.key)) ?? [], scope),
    );
  }
}

describe("stepwise report --source analytics-engine (live, through the SQL API)", () => {
  it("answers every figure of every group, route and bucket as the events would, sampling included", async () => {
    const window = { since: start, until: start + 2 * day };
    const source = live();
    const report = await buildReport(source, { window, bucketMs: 6 * 3_600_000 });
    expect(report.counted).toBe(calls.length);
    expectFiguresMatch(report.totals, referenceFigures(calls, calls.length));
    expect(report.totals.latencyExact).toBe(true);
    expectRowsMatch(
      report.groups,
      calls,
      ["gateway", "route", "step", "provider", "model"],
      calls.length,
    );
    expectRowsMatch(report.routes, calls, ["gateway", "route"], calls.length);
    // The Worker's points carry no client steering: unknown for every route, never 0.
    expect(report.steering.recorded).toBe(false);
    expect(report.steering.routes.map((row) => row.key)).toEqual(
      report.routes.map((row) => row.key),
    );
    for (const row of report.steering.routes) {
      expect([row.skipped, row.demoted, row.hedging, row.calls]).toEqual([
        null,
        null,
        null,
        report.routes.find(
          (route) => route.key.route === row.key.route && route.key.gateway === row.key.gateway,
        )!.figures.calls,
      ]);
    }
    expect(report.series.points).toHaveLength(8);
    for (const point of report.series.points) {
      const inBucket = referenceWindow(calls, Date.parse(point.start), Date.parse(point.end));
      expectFiguresMatch(point.figures, referenceFigures(inBucket, calls.length));
      expectRowsMatch(
        point.groups ?? [],
        inBucket,
        ["gateway", "route", "step", "provider", "model"],
        inBucket.length,
      );
    }
    // Aggregate rows came back, not points: a few hundred rows for 4,000 points.
    expect(report.source.requests).toBe(fake.queries.length);
    expect(source.stats.records).toBeLessThan(stored.length / 4);
    expect(report.source.bytesFetched).toBeGreaterThan(0);
  });

  it("sizes automatic buckets to the span of an open window, and groups by a metadata key", async () => {
    const report = await buildReport(live(), { dimensions: ["route", "metadata.plan"] });
    expect(report.series.auto).toBe(true);
    expect(report.series.bucket).toBe("30m");
    expect(report.series.points.length).toBeGreaterThanOrEqual(30);
    expect(report.series.points.length).toBeLessThanOrEqual(120);
    expect(report.series.points.reduce((sum, point) => sum + point.figures.calls, 0)).toBe(
      calls.length,
    );
    const byPlan = new Map<string, typeof calls>();
    for (const call of calls) {
      const key = JSON.stringify({ route: call.route, "metadata.plan": call.plan });
      byPlan.set(key, [...(byPlan.get(key) ?? []), call]);
    }
    expect(report.groups.map((row) => JSON.stringify(row.key)).sort()).toEqual(
      [...byPlan.keys()].sort(),
    );
    for (const row of report.groups) {
      expectFiguresMatch(
        row.figures,
        referenceFigures(byPlan.get(JSON.stringify(row.key)) ?? [], calls.length),
      );
    }
  });

  it("groups by a metadata key that is not ASCII (ClickHouse's substring counts bytes)", async () => {
    const teams = ["équipe-α", "équipe-β"];
    const own = createFakeSqlApi({ accountId, apiToken, dataset: "stepwise_events" });
    try {
      await own.load(
        stored.slice(0, 200).map((event, index) => ({
          time: Date.parse(event.time),
          point: callPointOf(event, { région: teams[index % 2] ?? "" }),
        })),
      );
      const report = await buildReport(
        analyticsEngineSqlSource({ accountId, apiToken, baseURL: own.baseURL, fetch: own.fetch }),
        { dimensions: ["metadata.région"] },
      );
      expect(report.groups.map((row) => [row.key["metadata.région"], row.figures.calls])).toEqual([
        [teams[0], 100],
        [teams[1], 100],
      ]);
      // The app is written in blob7 only, and `metadata.app` reads it there, as the gateway's
      // logs carry it in their metadata.
      const byApp = await buildReport(
        analyticsEngineSqlSource({ accountId, apiToken, baseURL: own.baseURL, fetch: own.fetch }),
        { dimensions: ["metadata.app"] },
      );
      expect(byApp.groups.map((row) => [row.key["metadata.app"], row.figures.calls])).toEqual([
        ["app_test", 200],
      ]);
    } finally {
      own.close();
    }
  });

  it("compares with the previous window and filters by gateway and route on the server", async () => {
    const report = await buildReport(live(), {
      window: { since: start + day, until: start + 2 * day },
      compareWindow: { since: start, until: start + day },
      routes: ["default"],
      dimensions: ["gateway", "route"],
    });
    const current = referenceWindow(calls, start + day, start + 2 * day).filter(
      (call) => call.route === "default",
    );
    const before = referenceWindow(calls, start, start + day).filter(
      (call) => call.route === "default",
    );
    expect(report.counted).toBe(current.length);
    expect(report.comparison?.totals.calls).toMatchObject({
      baseline: before.length,
      current: current.length,
    });
    expectFiguresMatch(
      report.comparison?.baseline.totals ?? {},
      referenceFigures(before, before.length),
    );
    expect(fake.queries.at(-1)).toContain("blob2 IN ('default')");
  });

  it("sends only functions the SQL reference documents (the fake refuses others)", async () => {
    const refused = await fake.fetch(`${fake.baseURL}/accounts/${accountId}/analytics_engine/sql`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiToken}` },
      body: "SELECT multiIf(double1 > 0, 1, 0) AS x FROM stepwise_events",
    });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("multiIf");
  });

  it("names the token when the API refuses it, and retries a busy API", async () => {
    const wrong = analyticsEngineSqlSource({
      accountId,
      apiToken: "wrong",
      baseURL: fake.baseURL,
      fetch: fake.fetch,
    });
    const error = await buildReport(wrong).catch((caught: unknown) => caught);
    expect(AnalyticsError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/HTTP 401.*CLOUDFLARE_API_TOKEN/);
    expect((error as Error).message).not.toContain("wrong");
    let busy = 2;
    const flaky: typeof fetch = async (input, init) =>
      busy-- > 0 ? new Response("overloaded", { status: 503 }) : fake.fetch(input, init);
    const waits: number[] = [];
    const report = await buildReport(
      analyticsEngineSqlSource({
        accountId,
        apiToken,
        baseURL: fake.baseURL,
        fetch: flaky,
        sleep: async (ms) => {
          waits.push(ms);
        },
      }),
      { dimensions: ["route"] },
    );
    expect(report.counted).toBe(calls.length);
    expect(waits).toEqual([1000, 2000]);
  });
});

describe("alerts on the live source (stepwise report --source analytics-engine --fail-…)", () => {
  async function run(args: string[]) {
    let output = "";
    const command = reportCommand({
      now: () => start + 2 * day,
      env: { CLOUDFLARE_API_TOKEN: apiToken, CLOUDFLARE_BASE_URL: fake.baseURL },
      fetch: fake.fetch,
      write: (text) => {
        output += text;
      },
    }).exitOverride();
    const result = await command
      .parseAsync(["--source", "analytics-engine", "--account-id", accountId, ...args], {
        from: "user",
      })
      .then(() => null)
      .catch((error: unknown) => error);
    return { error: result, output };
  }

  it("fails a cron job when availability drops below the threshold, after printing the report", async () => {
    const current = referenceWindow(calls, start + day, start + 2 * day);
    const availability = referenceFigures(current, current.length).availability ?? 0;
    const failed = await run([
      "--since",
      "24h",
      "--fail-below",
      `availability=${availability + 0.001}`,
    ]);
    expect(ThresholdError.isInstance(failed.error)).toBe(true);
    expect(failed.output).toContain(`${current.length.toLocaleString("en-US")} calls counted`);
    const passed = await run([
      "--since",
      "24h",
      "--fail-below",
      `availability=${availability - 0.001}`,
    ]);
    expect(passed.error).toBeNull();
  });

  it("compares with the previous window in JSON", async () => {
    const { error, output } = await run([
      "--since",
      "24h",
      "--compare",
      "previous",
      "--json",
      "--by",
      "route",
    ]);
    expect(error).toBeNull();
    const report = JSON.parse(output) as Report;
    expect(report.comparison?.baseline.counted).toBe(
      referenceWindow(calls, start, start + day).length,
    );
  });

  it("explains a missing account id or token", async () => {
    let output = "";
    const command = reportCommand({ env: {}, write: (text) => (output += text) }).exitOverride();
    const error = await command
      .parseAsync(["--source", "analytics-engine"], { from: "user" })
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/--account-id/);
    expect(output).toBe("");
  });
});
