import { describe, expect, it } from "vitest";
import {
  campaignSettings,
  chainAvailability,
  expectedAvailability,
  isAnswered,
  theoreticalAvailability,
} from "../../src/chaos/index.ts";

describe("theoretical availability", () => {
  it("is 1 − Π p over independent step failure rates", () => {
    expect(theoreticalAvailability([0.3, 0.2, 0.1])).toBeCloseTo(0.994, 12);
    expect(theoreticalAvailability([0.5])).toBe(0.5);
    expect(theoreticalAvailability([1, 1])).toBe(0);
    expect(theoreticalAvailability([0, 0.9])).toBe(1);
  });

  it("reduces to 1 − Π p when no step breaks after answering", () => {
    const rates = [0.3, 0.2, 0.1];
    expect(chainAvailability(rates.map((fails) => ({ fails, breaks: 0 })))).toBeCloseTo(
      theoreticalAvailability(rates),
      12,
    );
  });

  it("moves on to the next step after a break as after a failure", () => {
    // Step 0 answers 70 % of calls; 20 % fail there and 10 % break after their first byte, and
    // all 30 % reach step 1, which answers 90 % of them.
    expect(
      chainAvailability([
        { fails: 0.2, breaks: 0.1 },
        { fails: 0.1, breaks: 0 },
      ]),
    ).toBeCloseTo(0.7 + 0.3 * 0.9, 12);
    expect(chainAvailability([{ fails: 0.2, breaks: 0.1 }])).toBeCloseTo(
      theoreticalAvailability([0.3]),
      12,
    );
  });

  it("blends plain and streamed calls by their counts", () => {
    const expected = expectedAvailability({
      plainCalls: 3,
      streamCalls: 1,
      plainSteps: [{ fails: 0.5, breaks: 0 }],
      streamSteps: [{ fails: 0.5, breaks: 0.25 }],
    });
    expect(expected).toBeCloseTo((3 * 0.5 + 1 * 0.25) / 4, 12);
    expect(
      expectedAvailability({ plainCalls: 0, streamCalls: 0, plainSteps: [], streamSteps: [] }),
    ).toBe(1);
  });

  it("counts a definitive 400 as answered, and a stream that broke after its 200 as not", () => {
    expect(isAnswered({ ok: true, status: 200 })).toBe(true);
    expect(isAnswered({ ok: false, status: 400 })).toBe(true);
    expect(isAnswered({ ok: false, status: 200 })).toBe(false);
    expect(isAnswered({ ok: false, status: 429 })).toBe(false);
    expect(isAnswered({ ok: false, status: 0 })).toBe(false);
    expect(isAnswered({ ok: false, status: 503 })).toBe(false);
  });
});

describe("campaign settings", () => {
  it("resolves the full and the quick campaign's defaults", () => {
    const full = campaignSettings();
    expect(full).toMatchObject({ calls: 3_000, concurrency: 16, seed: 1, rates: [0.3, 0.2, 0.1] });
    expect(full.tightDeadline.ms).toBeLessThan(full.deadlineMs);
    expect(campaignSettings({ quick: true })).toMatchObject({ calls: 300, quick: true });
    expect(campaignSettings({ quick: true, calls: 50 }).calls).toBe(50);
  });

  it("refuses settings that cannot run, naming the setting and its range", () => {
    expect(() => campaignSettings({ calls: 0 })).toThrow(
      /calls must be a whole number of at least 1/,
    );
    expect(() => campaignSettings({ rates: [0.3, 1] })).toThrow(/rate 2 must be between 0 and 0.9/);
    expect(() => campaignSettings({ rates: [] })).toThrow(/at least one fault rate/);
    expect(() => campaignSettings({ streamShare: 2 })).toThrow(/stream share/);
  });
});
