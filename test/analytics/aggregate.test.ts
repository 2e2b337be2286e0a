import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aggregateEvents } from "../../src/analytics/aggregate.ts";
import { maxAutoBuckets } from "../../src/analytics/window.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";
import {
  baseTime,
  dimensionsArbitrary,
  eventsArbitrary,
  instantArbitrary,
  threeDays,
} from "./arbitraries.ts";
import {
  expectFiguresMatch,
  referenceFigures,
  referenceGroups,
  referenceWindow,
} from "./reference.ts";

const runs = { numRuns: 60 };

describe("aggregateEvents against a plain recomputation", () => {
  it("computes every figure per group, per route and in total, inside the window and filters", async () => {
    await fc.assert(
      fc.asyncProperty(
        eventsArbitrary,
        dimensionsArbitrary,
        instantArbitrary,
        instantArbitrary,
        fc.option(fc.constantFrom<string[]>(["chat-prod"], ["batch-dev"]), { nil: undefined }),
        fc.option(fc.constantFrom<string[]>(["default"], ["fast", "summarise"]), {
          nil: undefined,
        }),
        async (events, dimensions, first, second, gateways, routes) => {
          const since = first !== null && second !== null ? Math.min(first, second) : first;
          const until = first !== null && second !== null ? Math.max(first, second) + 1 : second;
          const aggregate = await aggregateEvents(events, {
            dimensions,
            window: { since, until },
            ...(gateways ? { gateways } : {}),
            ...(routes ? { routes } : {}),
          });
          const selected = events.filter(
            (event) =>
              (!gateways || gateways.includes(event.gateway)) &&
              (!routes || routes.includes(event.route)),
          );
          const inside = referenceWindow(selected, since, until);
          expect(aggregate.counted).toBe(inside.length);
          expect(aggregate.filteredOut).toBe(events.length - selected.length);
          expect(aggregate.outsideWindow).toBe(selected.length - inside.length);
          expectFiguresMatch(aggregate.totals, referenceFigures(inside, inside.length));

          const groups = referenceGroups(inside, dimensions);
          expect(aggregate.groups.map((row) => JSON.stringify(row.key)).sort()).toEqual(
            [...groups.keys()].sort(),
          );
          for (const row of aggregate.groups) {
            expectFiguresMatch(
              row.figures,
              referenceFigures(groups.get(JSON.stringify(row.key)) ?? [], inside.length),
            );
          }
          const routeGroups = referenceGroups(inside, ["gateway", "route"]);
          expect(aggregate.routes).toHaveLength(routeGroups.size);
          for (const row of aggregate.routes) {
            expectFiguresMatch(
              row.figures,
              referenceFigures(routeGroups.get(JSON.stringify(row.key)) ?? [], inside.length),
            );
          }
          const times = inside.map((event) => Date.parse(event.time));
          expect(aggregate.firstEvent).toBe(
            times.length ? new Date(Math.min(...times)).toISOString() : null,
          );
          expect(aggregate.lastEvent).toBe(
            times.length ? new Date(Math.max(...times)).toISOString() : null,
          );
        },
      ),
      runs,
    );
  });

  it("splits an explicit --bucket into aligned UTC buckets with per-bucket groups", async () => {
    await fc.assert(
      fc.asyncProperty(
        eventsArbitrary,
        dimensionsArbitrary,
        fc.constantFrom(60_000, 300_000, 3_600_000, 86_400_000),
        async (events, dimensions, bucketMs) => {
          const aggregate = await aggregateEvents(events, { dimensions, bucketMs });
          expect(aggregate.series.auto).toBe(false);
          expect(aggregate.series.bucketMs).toBe(bucketMs);
          const byBucket = new Map<number, CallEvent[]>();
          for (const event of events) {
            const start = Date.parse(event.time) - (Date.parse(event.time) % bucketMs);
            byBucket.set(start, [...(byBucket.get(start) ?? []), event]);
          }
          expect(aggregate.series.points.map((point) => Date.parse(point.start))).toEqual(
            [...byBucket.keys()].sort((a, b) => a - b),
          );
          for (const point of aggregate.series.points) {
            const inBucket = byBucket.get(Date.parse(point.start)) ?? [];
            expect(Date.parse(point.end) - Date.parse(point.start)).toBe(bucketMs);
            expectFiguresMatch(point.figures, referenceFigures(inBucket, events.length));
            const groups = referenceGroups(inBucket, dimensions);
            expect(point.groups).toHaveLength(groups.size);
            for (const row of point.groups ?? []) {
              expectFiguresMatch(
                row.figures,
                referenceFigures(groups.get(JSON.stringify(row.key)) ?? [], inBucket.length),
              );
            }
          }
        },
      ),
      runs,
    );
  });

  it("keeps the automatic series bounded and exact by merging whole buckets", async () => {
    // 5,000 events over three days: 15m buckets would be 288 and 30m 144 (over 120), so the
    // series ends at 1h buckets (72).
    const events = [
      ...generateEvents({ count: 5_000, seed: 7, start: baseTime, spanMs: threeDays }),
    ];
    const aggregate = await aggregateEvents(events);
    const { points, bucketMs, auto } = aggregate.series;
    expect(auto).toBe(true);
    expect(points.length).toBeLessThanOrEqual(maxAutoBuckets);
    expect(bucketMs).toBe(3_600_000);
    expect(points).toHaveLength(72);
    const byBucket = new Map<number, CallEvent[]>();
    for (const event of events) {
      const start = Date.parse(event.time) - (Date.parse(event.time) % bucketMs);
      byBucket.set(start, [...(byBucket.get(start) ?? []), event]);
    }
    expect(points).toHaveLength(byBucket.size);
    for (const point of points) {
      expect(point.groups).toBeUndefined();
      expectFiguresMatch(
        point.figures,
        referenceFigures(byBucket.get(Date.parse(point.start)) ?? [], events.length),
      );
    }
  });

  it("counts a cut stream against availability, and a caller's 400 for it", async () => {
    const [template] = generateEvents({ count: 1, seed: 3, start: baseTime, spanMs: 1_000 });
    const call = (status: number, ok: boolean, errorCode: string | null): CallEvent => ({
      ...template!,
      status,
      ok,
      errorCode,
    });
    const aggregate = await aggregateEvents([
      call(200, true, null),
      call(200, false, "incomplete_stream"),
      call(400, false, "api_call_error"),
      call(503, false, "all_steps_failed"),
    ]);
    expect(aggregate.totals.answered).toBe(2);
    expect(aggregate.totals.availability).toBe(0.5);
    expect(aggregate.totals.successRate).toBe(0.25);
  });

  it("reports an empty window with null rates instead of dividing by zero", async () => {
    const aggregate = await aggregateEvents([]);
    expect(aggregate.totals).toMatchObject({
      calls: 0,
      share: null,
      successRate: null,
      availability: null,
      p95LatencyMs: null,
      cost: 0,
    });
    expect(aggregate.groups).toEqual([]);
    expect(aggregate.series.points).toEqual([]);
  });
});
