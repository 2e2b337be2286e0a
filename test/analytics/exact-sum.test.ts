/**
 * The exact sum behind every cost figure: the same total whatever the order or grouping of the
 * values (so threads that each sum a part agree with one pass), and the correctly rounded total.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExactSum } from "../../src/analytics/exact-sum.ts";

const sumOf = (values: readonly number[]) => {
  const sum = new ExactSum();
  for (const value of values) sum.add(value);
  return sum;
};

describe("ExactSum", () => {
  it("rounds the exact total once, where += drifts", () => {
    expect(sumOf([0.1, 0.2]).value).toBe(0.30000000000000004);
    expect(sumOf([0.1, 0.2, -0.3]).value).toBe(2.7755575615628914e-17);
    expect(sumOf([1e100, 1, -1e100]).value).toBe(1);
    expect(sumOf(Array.from({ length: 10 }, () => 0.1)).value).toBe(1);
    expect(sumOf([]).value).toBe(0);
  });

  it("rounds a half-way total to even, as math.fsum does", () => {
    // 1 + 2^-53 is exactly half-way between 1 and the next double; a tiny remainder decides.
    expect(sumOf([1, 2 ** -53, 2 ** -80]).value).toBe(1 + 2 ** -52);
    expect(sumOf([1, 2 ** -53, -(2 ** -80)]).value).toBe(1);
  });

  it("gives the same total in any order and any grouping, merged", () => {
    const cost = fc.double({ min: 0, max: 1_000_000, noNaN: true, noDefaultInfinity: true });
    fc.assert(
      fc.property(fc.array(cost, { maxLength: 200 }), fc.nat(), (values, cut) => {
        const whole = sumOf(values).value;
        const reversed = sumOf([...values].reverse()).value;
        const at = values.length === 0 ? 0 : cut % values.length;
        const parts = sumOf(values.slice(at));
        parts.merge(sumOf(values.slice(0, at)));
        const carried = ExactSum.of(parts.partials);
        expect(reversed).toBe(whole);
        expect(parts.value).toBe(whole);
        expect(carried.value).toBe(whole);
      }),
    );
  });
});
