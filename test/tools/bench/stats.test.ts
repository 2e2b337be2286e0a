/**
 * The benchmark runner's statistics: percentiles, summaries, ratios and throughput are what
 * BENCHMARKS.md reports, so they are checked against values worked out by hand.
 */
import { describe, expect, it } from "vitest";
import {
  formatBytes,
  formatDeltaMs,
  formatMs,
  formatRatio,
  quantile,
  ratio,
  summarize,
  throughput,
} from "../../../tools/bench/stats.ts";

describe("quantile", () => {
  it("interpolates between the closest ranks, like numpy's default", () => {
    // Sorted: 1 2 3 4; the median sits halfway between 2 and 3.
    expect(quantile([4, 1, 3, 2], 0.5)).toBe(2.5);
    // (n - 1) * 0.9 = 2.7 → 3 + 0.7 * (4 - 3)
    expect(quantile([1, 2, 3, 4], 0.9)).toBeCloseTo(3.7, 10);
    expect(quantile([1, 2, 3, 4], 0)).toBe(1);
    expect(quantile([1, 2, 3, 4], 1)).toBe(4);
    expect(quantile([7], 0.99)).toBe(7);
  });

  it("gives the p99 of 1..100 as 99.01", () => {
    const samples = Array.from({ length: 100 }, (_, index) => index + 1);
    // (100 - 1) * 0.99 = 98.01 → 99 + 0.01 * (100 - 99)
    expect(quantile(samples, 0.99)).toBeCloseTo(99.01, 10);
  });

  it("refuses no samples or a q outside [0, 1]", () => {
    expect(() => quantile([], 0.5)).toThrow(RangeError);
    expect(() => quantile([1], 1.5)).toThrow(/between 0 and 1/);
    expect(() => quantile([1], Number.NaN)).toThrow(RangeError);
  });
});

describe("summarize", () => {
  it("reports count, min, median, p99, max and mean without reordering the input", () => {
    const samples = [5, 1, 4, 2, 3];
    expect(summarize(samples)).toStrictEqual({
      count: 5,
      min: 1,
      median: 3,
      p99: 4.96,
      max: 5,
      mean: 3,
    });
    expect(samples).toStrictEqual([5, 1, 4, 2, 3]);
  });

  it("refuses an empty run rather than reporting NaN", () => {
    expect(() => summarize([])).toThrow(RangeError);
  });
});

describe("ratio and throughput", () => {
  it("divides the candidate by the baseline", () => {
    expect(ratio(1.1, 1)).toBeCloseTo(1.1, 10);
    expect(ratio(0.45, 0.5)).toBeCloseTo(0.9, 10);
  });

  it("refuses a baseline that is zero, negative or not a number", () => {
    expect(() => ratio(1, 0)).toThrow(RangeError);
    expect(() => ratio(1, -2)).toThrow(RangeError);
    expect(() => ratio(1, Number.NaN)).toThrow(RangeError);
  });

  it("turns a count and elapsed milliseconds into requests per second", () => {
    expect(throughput(4_000, 2_000)).toBe(2_000);
    expect(throughput(1, 4)).toBe(250);
    expect(() => throughput(10, 0)).toThrow(RangeError);
  });
});

describe("formats", () => {
  it("prints milliseconds with three significant figures at most", () => {
    expect(formatMs(0.4123)).toBe("0.412 ms");
    expect(formatMs(1.555)).toBe("1.55 ms");
    expect(formatMs(12.34)).toBe("12.3 ms");
    expect(formatMs(251.4)).toBe("251 ms");
    expect(formatMs(Number.NaN)).toBe("—");
  });

  it("prints ratios, signed differences and byte sizes", () => {
    expect(formatRatio(1.0449)).toBe("1.04×");
    expect(formatRatio(Number.POSITIVE_INFINITY)).toBe("—");
    expect(formatDeltaMs(0.21)).toBe("+0.210 ms");
    expect(formatDeltaMs(-1.3)).toBe("−1.30 ms");
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(17_728)).toBe("17.7 kB");
    expect(formatBytes(966_663)).toBe("966.7 kB");
    expect(formatBytes(232_700_000)).toBe("232.7 MB");
    expect(formatBytes(2_900_000_000)).toBe("2.90 GB");
  });
});
