/**
 * How a section states its noise: a run's rounds split into consecutive parts, a figure computed
 * per part, and the parts' largest distance from their median, checked against values worked
 * out by hand.
 */
import { describe, expect, it } from "vitest";
import type { LoadResult } from "../../../tools/bench/load.ts";
import {
  formatSpread,
  noiseStatement,
  partsOf,
  partsOfRounds,
  spreadPercent,
} from "../../../tools/bench/noise.ts";

const load = (latencies: number[], elapsedMs: number): LoadResult => ({
  latencies,
  failures: 0,
  firstFailure: undefined,
  elapsedMs,
});

describe("partsOf", () => {
  it("merges consecutive items into nearly equal parts", () => {
    expect(partsOf([1, 2, 3, 4, 5], 2, (a, b) => a + b)).toStrictEqual([3, 12]);
    expect(partsOf([1, 2, 3, 4, 5, 6, 7, 8], 4, (a, b) => a + b)).toStrictEqual([3, 7, 11, 15]);
    expect(partsOf([1, 2], 4, (a, b) => a + b)).toStrictEqual([1, 2]);
    expect(partsOf([], 4, (a: number, b: number) => a + b)).toStrictEqual([]);
  });

  it("joins each side's blocks within a part", () => {
    const rounds = [
      { a: load([1], 10), b: load([2], 20) },
      { a: load([3], 30), b: load([4], 40) },
    ];
    expect(partsOfRounds(rounds, 1)).toStrictEqual([{ a: load([1, 3], 40), b: load([2, 4], 60) }]);
  });
});

describe("spreadPercent", () => {
  it("is the largest distance from the median in percent of it", () => {
    // Median 100; 90 is 10 away.
    expect(spreadPercent([100, 90, 105])).toBe(10);
    expect(spreadPercent([5])).toBe(0);
    expect(spreadPercent([0, 0])).toBe(0);
    expect(() => spreadPercent([])).toThrow(RangeError);
  });

  it("formats with one decimal under 10 %", () => {
    expect(formatSpread(2.44)).toBe("±2.4 %");
    expect(formatSpread(12.6)).toBe("±13 %");
    expect(formatSpread(0)).toBe("±0 %");
  });
});

describe("noiseStatement", () => {
  it("states each figure over the parts and the widest spread as the bound", () => {
    const text = noiseStatement("750 requests per side", [
      { figure: "requests/s", values: [100, 90, 105], format: String },
      { figure: "CPU/request", values: [1, 1.02, 0.99], format: String },
    ]);
    expect(text).toBe(
      "computed on each of the run's 3 consecutive parts (750 requests per side): requests/s 100, 90, 105 (±10 %); CPU/request 1, 1.02, 0.99 (±2.0 %). A second run on a quiet machine lands within ±10 % of these figures (a part is a fraction of the run, so the whole run's figure is steadier than a part's; on a loaded machine, more).",
    );
  });

  it("says so when a figure was measured once", () => {
    expect(noiseStatement("", [{ figure: "x", values: [1], format: String }])).toMatch(
      /^not computed/,
    );
  });
});
