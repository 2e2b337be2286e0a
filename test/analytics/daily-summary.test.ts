import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnalyticsDataPoint } from "../../src/worker/bindings.ts";
import {
  dailySummaryVersion,
  isSummaryRun,
  runDailySummary,
} from "../../src/worker/daily-summary.ts";
import { createFakeSqlApi } from "../../tools/fakes/analytics-engine-sql-api.ts";
import { asStored, callPointOf } from "../../tools/fakes/call-points.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";
import { referenceFigures } from "./reference.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const start = Date.parse("2026-05-01T00:00:00Z");
const day = 86_400_000;
const sql = createFakeSqlApi({ accountId, apiToken: "analytics", dataset: "stepwise_events" });
const events = [...generateEvents({ count: 2_000, seed: 5, start, spanMs: 2 * day })].map(asStored);

beforeAll(async () => {
  await sql.load(
    events.map((event) => ({ time: Date.parse(event.time), point: callPointOf(event) })),
  );
});
afterAll(() => sql.close());

function setup(env: Record<string, unknown> = {}) {
  const points: AnalyticsDataPoint[] = [];
  const lines: string[] = [];
  const logger = {
    info: (line: string) => lines.push(line),
    warn: (line: string) => lines.push(line),
    error: (line: string) => lines.push(line),
  };
  return {
    points,
    lines,
    input: (scheduledTime: number) => ({
      env: {
        DAILY_SUMMARY: { writeDataPoint: (point: AnalyticsDataPoint) => points.push(point) },
        ANALYTICS_API_TOKEN: "analytics",
        ANALYTICS_API_URL: sql.baseURL,
        ...env,
      },
      accountId,
      scheduledTime,
      fetch: sql.fetch,
      logger,
    }),
  };
}

describe("the Worker cron's daily summary point", () => {
  it("writes yesterday's figures per route at 01:00 UTC, as the report counts them", async () => {
    const { points, lines, input } = setup();
    const summaries = await runDailySummary(input(start + day + 3_600_000));
    const yesterday = events.filter((event) => Date.parse(event.time) < start + day);
    const routes = new Map<string, typeof yesterday>();
    for (const event of yesterday) {
      const key = `${event.gateway}/${event.route}`;
      routes.set(key, [...(routes.get(key) ?? []), event]);
    }
    expect(summaries.map((summary) => `${summary.gateway}/${summary.route}`)).toEqual(
      [...routes.keys()].sort(),
    );
    for (const [index, summary] of summaries.entries()) {
      const calls = routes.get(`${summary.gateway}/${summary.route}`) ?? [];
      const figures = referenceFigures(calls, calls.length);
      expect(summary).toMatchObject({ day: "2026-05-01", calls: calls.length });
      expect(summary.answered / summary.calls).toBeCloseTo(figures.availability ?? 0, 12);
      expect(summary.fallbacks / summary.calls).toBeCloseTo(figures.fallbackRate ?? 0, 12);
      expect(summary.p95LatencyMs).toBe(figures.p95LatencyMs);
      expect(points[index]).toEqual({
        indexes: [summary.gateway],
        blobs: ["2026-05-01", summary.gateway, summary.route],
        doubles: [
          summary.calls,
          summary.ok,
          summary.answered,
          summary.fallbacks,
          summary.cost,
          summary.p95LatencyMs,
          dailySummaryVersion,
        ],
      });
    }
    expect(lines[0]).toMatch(
      /^stepwise worker: daily summary 2026-05-01 batch-dev\/summarise: \d+ calls, availability/,
    );
    expect(sql.queries.at(-1)).toContain("GROUP BY gateway, route");
  });

  it("runs once a day, only with its bindings, and never fails the cron", async () => {
    expect(isSummaryRun(start + day + 3_600_000)).toBe(true);
    expect(isSummaryRun(start + day + 3_600_000 + 15 * 60_000)).toBe(false);
    expect(isSummaryRun(start + day)).toBe(false);
    const quiet = setup();
    expect(await runDailySummary(quiet.input(start + day + 7_200_000))).toEqual([]);
    const unbound = setup({ DAILY_SUMMARY: undefined });
    expect(await runDailySummary(unbound.input(start + day + 3_600_000))).toEqual([]);
    const refused = setup({ ANALYTICS_API_TOKEN: "wrong" });
    expect(await runDailySummary(refused.input(start + day + 3_600_000))).toEqual([]);
    expect(refused.points).toEqual([]);
    expect(refused.lines).toEqual([
      "stepwise worker: daily summary 2026-05-01 failed (SQL API answered HTTP 401); the cron went on",
    ]);
  });
});
