/**
 * The companion Worker writes one Analytics Engine point per request, so a call the client
 * re-sent is several points sharing the app and the event id; the report's SQL counts each call
 * once, by its last attempt (`double9`), through a subquery (src/analytics/sql/call-point-sql.ts).
 * Both are in Analytics Engine's SQL reference: "FROM <table_name>|(subquery)", and "argMax is
 * an aggregation function that returns the arg value that corresponds to the maximum value of
 * val". The fake SQL API runs the SQL in DuckDB. An export file is folded the same way
 * (src/analytics/sources/point-calls.ts).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  analyticsEngineSource,
  analyticsEngineSqlSource,
  buildReport,
} from "../../src/analytics/index.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { type CallPoint, encodeCallPoint } from "../../src/worker/analytics-schema.ts";
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
    // H: a hedge raced the first request of attempt 1 and lost (its stream was cancelled).
    { time: t0, point: point({ eventId: "h" }) },
    {
      time: t0,
      point: point({
        eventId: "h",
        step: null,
        ok: false,
        errorCode: "incomplete_stream",
        provider: "openai",
        tokensIn: null,
        tokensOut: null,
        cost: null,
      }),
    },
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
      calls: 7,
      ok: 6,
      fallbacks: 1,
      steps: { "0": 5, "1": 1, none: 1 },
      tokensIn: 60,
      cost: expect.closeTo(0.00575, 12),
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

describe("a call the client re-sent, in an Analytics Engine export file", () => {
  it("is one event: its last attempt, its first attempt's time, the others' cost apart", async () => {
    const rows = [
      point({ eventId: "a", errorCode: "incomplete_stream", ok: false, cost: 0.0006 }),
      point({ eventId: "b" }),
      point({
        eventId: "a",
        attempt: 2,
        step: 1,
        provider: "openai",
        latencyMs: 19,
        cost: 0.00075,
      }),
      point({ latencyMs: 11 }),
      point({ eventId: "a", app: "app_2" }),
    ].map((written, index) => {
      const encoded = encodeCallPoint(written);
      return JSON.stringify({
        timestamp: new Date(t0 + index * 1000).toISOString(),
        ...Object.fromEntries(encoded.blobs.map((blob, column) => [`blob${column + 1}`, blob])),
        ...Object.fromEntries(
          encoded.doubles.map((value, column) => [`double${column + 1}`, value]),
        ),
      });
    });
    const directory = await mkdtemp(path.join(tmpdir(), "stepwise-ae-attempts-"));
    try {
      const file = path.join(directory, "export.jsonl");
      await writeFile(file, rows.join("\n"));
      const events: CallEvent[] = [];
      for await (const event of analyticsEngineSource(file).events()) events.push(event);
      expect(events.map((event) => [event.id, event.step, event.ok, event.attempts])).toEqual([
        // A row without an event id is a call at once; the others once the rows are read.
        [expect.stringMatching(/^ae-/), 0, true, 1],
        ["b", 0, true, 1],
        ["a", 1, true, 2],
        ["a", 0, true, 1],
      ]);
      const rescued = events[2]!;
      expect(rescued).toMatchObject({
        time: new Date(t0).toISOString(),
        latencyMs: 19,
        cost: 0.00075,
        failedAttemptsCost: 0.0006,
      });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
