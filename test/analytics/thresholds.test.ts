import { describe, expect, it } from "vitest";
import { aggregateEvents } from "../../src/analytics/aggregate.ts";
import { checkThresholds, parseThreshold } from "../../src/analytics/thresholds.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";

describe("thresholds", () => {
  it("parses fractions and percentages for rates, plain numbers for the rest", () => {
    expect(parseThreshold("fallback-rate=0.05", "above")).toEqual({
      metric: "fallback-rate",
      direction: "above",
      value: 0.05,
    });
    expect(parseThreshold("availability=99.5%", "below").value).toBeCloseTo(0.995, 12);
    expect(parseThreshold("p95-latency-ms=1500", "above").value).toBe(1500);
  });

  it("rejects unknown metrics, bad numbers and rates out of range with the fix", () => {
    expect(() => parseThreshold("fallback=0.05", "above")).toThrow(
      /not metric=value. Metrics: fallback-rate, availability/,
    );
    expect(() => parseThreshold("availability=high", "below")).toThrow(/"high" is not a number/);
    expect(() => parseThreshold("availability=1.5", "below")).toThrow(/between 0 and 1/);
    expect(() => parseThreshold("cost=5%", "above")).toThrow(/not a number/);
  });

  it("reports each crossed threshold with its metric, value and threshold, and passes the others", async () => {
    const events = [...generateEvents({ count: 2_000, seed: 3 })];
    // One call that timed out on every step, so availability is below 100 %.
    events.push({ ...events[0]!, step: null, ok: false, status: 0, errorCode: "timeout" });
    const { totals } = await aggregateEvents(events);
    expect(totals.availability).toBeLessThan(1);
    const breaches = checkThresholds(
      [
        parseThreshold(`fallback-rate=${(totals.fallbackRate ?? 0) - 0.001}`, "above"),
        parseThreshold(`fallback-rate=${(totals.fallbackRate ?? 0) + 0.001}`, "above"),
        parseThreshold(`availability=1`, "below"),
        parseThreshold(`calls=${totals.calls}`, "below"),
      ],
      totals,
    );
    expect(breaches.map((breach) => [breach.metric, breach.direction, breach.value])).toEqual([
      ["fallback-rate", "above", totals.fallbackRate],
      ["availability", "below", totals.availability],
    ]);
    expect(breaches[1]?.message).toBe(
      `availability ${Number(((totals.availability ?? 0) * 100).toFixed(2))}% is below the threshold 100% (--fail-below availability=1)`,
    );
  });

  it("treats a metric with no value (no calls) as crossed", async () => {
    const { totals } = await aggregateEvents([]);
    const [breach] = checkThresholds([parseThreshold("availability=0.99", "below")], totals);
    expect(breach?.message).toMatch(/availability has no value \(no calls in the window\)/);
  });
});
