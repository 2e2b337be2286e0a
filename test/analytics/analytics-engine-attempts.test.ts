/**
 * The companion Worker writes one Analytics Engine point per request, so a call the client
 * re-sent is several points sharing the app and the event id; the report's SQL counts each call
 * once, by its last attempt (`double9`), through a subquery (src/analytics/sql/call-point-sql.ts).
 * Both are in Analytics Engine's SQL reference: "FROM <table_name>|(subquery)", and "argMax is
 * an aggregation function that returns the arg value that corresponds to the maximum value of
 * val". The fake SQL API runs the SQL in DuckDB.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyticsEngineSqlSource, buildReport } from "../../src/analytics/index.ts";
import type { CallPoint } from "../../src/worker/analytics-schema.ts";
import { createFakeSqlApi } from "../../tools/fakes/analytics-engine-sql-api.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const apiToken = "test-analytics-token";
const t0 = Date.parse("2026-05-01T12:00:00Z");
const fake = createFakeSqlApi({ accountId, apiToken, dataset: "stepwise_events" });

function point(overrides: Partial<CallPoint>): CallPoint {
  return {
    gateway: "chat-prod",
    route: "default",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    errorCode: null,
    cacheStatus: "MISS",
    app: "app_1",
    mode: "universal",
    keySource: "current",
    eventId: null,
    metadata: { route: "default" },
    step: 0,
    status: 200,
    latencyMs: 10,
    ok: true,
    tokensIn: 10,
    tokensOut: 5,
    cost: 0.001,
    attempt: 1,
    ...overrides,
  };
}

beforeAll(async () => {
  await fake.load([
    // A: a stream cut on route step 0, rescued by route step 1 on the client's second attempt.
    {
      time: t0,
      point: point({ eventId: "a", errorCode: "incomplete_stream", ok: false, cost: 0.0006 }),
    },
    {
      time: t0 + 1000,
      point: point({
        eventId: "a",
        attempt: 2,
        step: 1,
        provider: "openai",
        model: "gpt-4o-mini",
        latencyMs: 19,
        cost: 0.00075,
      }),
    },
    // B: one attempt, served by step 0.
    { time: t0, point: point({ eventId: "b" }) },
    // C: the client rejected step 0's answer, and its second attempt failed.
    { time: t0, point: point({ eventId: "c" }) },
    {
      time: t0 + 2000,
      point: point({
        eventId: "c",
        attempt: 2,
        step: null,
        status: 503,
        ok: false,
        errorCode: "http_503",
        provider: "openai",
        tokensIn: null,
        tokensOut: null,
        cost: null,
      }),
    },
    // Another app's call with the same event id is another call.
    { time: t0, point: point({ eventId: "a", app: "app_2" }) },
    // Two points without an event id in the same second: two calls.
    { time: t0, point: point({ latencyMs: 11 }) },
    { time: t0, point: point({ latencyMs: 12 }) },
  ]);
});
afterAll(() => fake.close());

describe("a call the client re-sent, in Analytics Engine", () => {
  it("counts once, by its last attempt: its route step, status, tokens and cost", async () => {
    const report = await buildReport(
      analyticsEngineSqlSource({ accountId, apiToken, baseURL: fake.baseURL, fetch: fake.fetch }),
      { dimensions: ["route", "step"], window: { since: t0 - 60_000, until: t0 + 60_000 } },
    );
    expect(report.totals).toMatchObject({
      calls: 6,
      ok: 5,
      fallbacks: 1,
      steps: { "0": 4, "1": 1, none: 1 },
      tokensIn: 50,
      cost: expect.closeTo(0.00475, 12),
    });
    // Every query counted calls from the one subquery, the last attempt chosen with argMax.
    for (const query of fake.queries) {
      expect(query).toContain("FROM (SELECT argMax(");
      expect(query).toContain("GROUP BY blob7, blob10");
    }
    // The first attempt's time, the last attempt's latency (counted from the call's start).
    expect(report.firstEvent).toBe(new Date(t0).toISOString());
    expect(report.totals.p99LatencyMs).toBe(19);
  });
});
