import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  exactSampleLimit,
  LatencySketch,
  relativeAccuracy,
} from "../../src/analytics/latency-sketch.ts";
import { createRandom } from "../../tools/scripts/generate-events.ts";

/** Nearest-rank quantile of a sorted array. */
function nearestRank(sorted: readonly number[], q: number): number | undefined {
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1];
}

const quantiles = [0, 0.01, 0.5, 0.9, 0.95, 0.99, 0.999, 1];

describe("LatencySketch", () => {
  it("is exact up to the sample limit", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }), {
          minLength: 1,
          maxLength: exactSampleLimit,
        }),
        (values) => {
          const sketch = new LatencySketch();
          for (const value of values) sketch.add(value);
          const sorted = [...values].sort((a, b) => a - b);
          expect(sketch.exact).toBe(true);
          for (const q of quantiles) expect(sketch.quantile(q)).toBe(nearestRank(sorted, q));
        },
      ),
    );
  });

  it("stays within the documented relative error on large skewed samples", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.integer({ min: 2_000, max: 30_000 }),
        (seed, count) => {
          const random = createRandom(seed);
          const values = Array.from({ length: count }, () => {
            // Log-normal latencies with a heavy tail of timeouts and a few zero-latency cache hits.
            const roll = random();
            if (roll < 0.01) return 0;
            if (roll < 0.03) return 15_000 + random() * 10;
            return (
              400 *
              Math.exp(
                1.2 *
                  Math.sqrt(-2 * Math.log(Math.max(1e-12, random()))) *
                  Math.cos(2 * Math.PI * random()),
              )
            );
          });
          const sketch = new LatencySketch();
          for (const value of values) sketch.add(value);
          expect(sketch.exact).toBe(false);
          const sorted = [...values].sort((a, b) => a - b);
          for (const q of quantiles) {
            const exact = nearestRank(sorted, q) ?? 0;
            const estimate = sketch.quantile(q) ?? Number.NaN;
            expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(exact * relativeAccuracy + 1e-9);
          }
        },
      ),
      { numRuns: 20 },
    );
  });

  it("merges to the same quantiles as one sketch fed everything", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 3_000 }),
        fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 3_000 }),
        (left, right) => {
          const merged = new LatencySketch();
          const other = new LatencySketch();
          const single = new LatencySketch();
          for (const value of left) merged.add(value);
          for (const value of right) other.add(value);
          for (const value of [...left, ...right]) single.add(value);
          merged.merge(other);
          expect(merged.count).toBe(left.length + right.length);
          const sorted = [...left, ...right].sort((a, b) => a - b);
          for (const q of quantiles) {
            const exact = nearestRank(sorted, q);
            if (exact === undefined) {
              expect(merged.quantile(q)).toBeNull();
              continue;
            }
            expect(Math.abs((merged.quantile(q) ?? Number.NaN) - exact)).toBeLessThanOrEqual(
              exact * relativeAccuracy + 1e-9,
            );
            if (single.exact) expect(merged.quantile(q)).toBe(single.quantile(q));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("returns null when empty", () => {
    expect(new LatencySketch().quantile(0.5)).toBeNull();
  });
});
