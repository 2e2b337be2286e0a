/**
 * The HTML charts' time axis: round UTC ticks, at most eight, labelled with the date at the first
 * tick and where the day changes; and the cost scale's round top.
 */
import { describe, expect, it } from "vitest";
import { niceCeiling } from "../../../src/analytics/render/svg-chart.ts";
import { maxTicks, timeTicks } from "../../../src/analytics/render/time-axis.ts";

const at = (iso: string) => Date.parse(iso);

describe("time ticks", () => {
  it.each([
    ["a minute", "2026-05-01T10:00:10Z", "2026-05-01T10:01:10Z", ["05-01 10:01"]],
    [
      "six hours",
      "2026-05-01T00:00:00Z",
      "2026-05-01T06:00:00Z",
      ["05-01 00:00", "01:00", "02:00", "03:00", "04:00", "05:00", "06:00"],
    ],
    [
      "a day from noon",
      "2026-05-01T12:00:00Z",
      "2026-05-02T12:00:00Z",
      ["05-01 12:00", "18:00", "05-02 00:00", "06:00", "12:00"],
    ],
    // Weekly ticks fall on the epoch's weeks (Thursdays).
    [
      "a month",
      "2026-05-01T00:00:00Z",
      "2026-05-31T00:00:00Z",
      ["05-07", "05-14", "05-21", "05-28"],
    ],
  ])("over %s", (_name, from, to, labels) => {
    const ticks = timeTicks(at(from), at(to));
    expect(ticks.length).toBeLessThanOrEqual(maxTicks);
    expect(ticks.map((tick) => tick.label)).toEqual(labels);
  });
});

describe("the cost scale", () => {
  it("tops out at 1, 2 or 5 times a power of ten", () => {
    expect([0, 0.00042, 0.0011, 0.3, 4, 7, 12].map(niceCeiling)).toEqual([
      1, 0.0005, 0.002, 0.5, 5, 10, 20,
    ]);
  });
});
