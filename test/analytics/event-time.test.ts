/**
 * The time of an event, read on the hot path without `Date.parse`: the same instant as
 * `Date.UTC` of its fields (and as `Date.parse`) for every real canonical time, null outside the sane
 * range or for an impossible date, whatever was read before it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventTime } from "../../src/analytics/event-time.ts";

const pad = (value: number, width: number) => String(value).padStart(width, "0");

describe("eventTime", () => {
  it("reads every real canonical time as Date.UTC of its fields, in any order", () => {
    const fields = fc.tuple(
      fc.integer({ min: 1990, max: 2210 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 31 }),
      fc.integer({ min: 0, max: 23 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 999 }),
    );
    fc.assert(
      fc.property(fc.array(fields, { minLength: 1, maxLength: 20 }), (times) => {
        for (const [year, month, day, hour, minute, second, ms] of times) {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(ms, 3)}Z`;
          const instant = Date.UTC(year, month - 1, day, hour, minute, second, ms);
          // A day past the month's end (2026-02-30) is refused, not rolled over.
          const real = new Date(instant).getUTCDate() === day;
          const sane = instant >= Date.UTC(2000, 0, 1) && instant < Date.UTC(2200, 0, 1);
          expect(eventTime(text)).toBe(real && sane ? instant : null);
          if (real) expect(Date.parse(text)).toBe(instant);
        }
      }),
    );
  });

  it("refuses an impossible date or a broken field after reading a good one", () => {
    expect(eventTime("2026-02-28T23:59:59.999Z")).toBe(Date.UTC(2026, 1, 28, 23, 59, 59, 999));
    expect(eventTime("2026-02-30T00:00:00.000Z")).toBeNull();
    expect(eventTime("2024-02-29T00:00:00.000Z")).toBe(Date.UTC(2024, 1, 29));
    expect(eventTime("2026-05-01T12:0x:00.000Z")).toBeNull();
    expect(eventTime("20x6-05-01T12:00:00.000Z")).toBeNull();
    expect(eventTime("2026-05-01T12:00:00.00xZ")).toBeNull();
    expect(eventTime("2026-05-01T12:00:00Z")).toBe(Date.UTC(2026, 4, 1, 12));
  });
});
