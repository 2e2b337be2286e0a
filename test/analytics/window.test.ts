import { describe, expect, it } from "vitest";
import { AnalyticsError } from "../../src/analytics/errors.ts";
import {
  bucketStart,
  formatDuration,
  inWindow,
  parseBucket,
  parseCompareWindow,
  parseDuration,
  parseInstant,
  parseWindow,
} from "../../src/analytics/window.ts";

const now = Date.parse("2026-05-02T12:00:00.000Z");

describe("time windows", () => {
  it("reads ISO times, dates, now and durations back from now", () => {
    expect(parseInstant("2026-05-01T06:30:00Z", now, "--since")).toBe(
      Date.parse("2026-05-01T06:30:00Z"),
    );
    expect(parseInstant("2026-05-01", now, "--since")).toBe(Date.parse("2026-05-01T00:00:00Z"));
    expect(parseInstant("now", now, "--until")).toBe(now);
    expect(parseInstant("24h", now, "--since")).toBe(now - 86_400_000);
    expect(parseInstant("90m", now, "--since")).toBe(now - 5_400_000);
  });

  it("names the option and the accepted forms when a time is wrong", () => {
    expect(() => parseInstant("yesterday", now, "--since")).toThrow(
      /--since "yesterday" is not a time.*24h/,
    );
    expect(() => parseWindow("1h", "2h", now)).toThrow(/--until .* must be after --since/);
  });

  it("ends an open window now when only --since is given, and leaves it open otherwise", () => {
    expect(parseWindow("1h", undefined, now)).toEqual({ since: now - 3_600_000, until: now });
    expect(parseWindow(undefined, undefined, now)).toEqual({ since: null, until: null });
    expect(parseWindow(undefined, "2026-05-01", now)).toEqual({
      since: null,
      until: Date.parse("2026-05-01"),
    });
  });

  it("is half-open: since included, until excluded", () => {
    const window = { since: 1_000, until: 2_000 };
    expect([999, 1_000, 1_999, 2_000].map((time) => inWindow(window, time))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(inWindow({ since: null, until: null }, -5)).toBe(true);
  });

  it("aligns buckets to UTC boundaries", () => {
    const time = Date.parse("2026-05-01T13:47:12.345Z");
    expect(new Date(bucketStart(time, parseBucket("5m"))).toISOString()).toBe(
      "2026-05-01T13:45:00.000Z",
    );
    expect(new Date(bucketStart(time, parseBucket("1h"))).toISOString()).toBe(
      "2026-05-01T13:00:00.000Z",
    );
    expect(new Date(bucketStart(time, parseBucket("1d"))).toISOString()).toBe(
      "2026-05-01T00:00:00.000Z",
    );
    expect(() => parseBucket("5")).toThrow(AnalyticsError);
    expect(() => parseBucket("10ms")).toThrow(/at least 1s/);
  });

  it("formats and parses durations both ways", () => {
    for (const text of ["1m", "5m", "1h", "6h", "1d", "1w", "30s"]) {
      expect(formatDuration(parseDuration(text) ?? 0)).toBe(text);
    }
    expect(parseDuration("0m")).toBeNull();
    expect(parseDuration("m")).toBeNull();
  });

  it("derives comparison windows: previous, a shift back, or an explicit range", () => {
    const current = {
      since: Date.parse("2026-05-02T00:00:00Z"),
      until: Date.parse("2026-05-02T12:00:00Z"),
    };
    expect(parseCompareWindow("previous", current, now)).toEqual({
      since: Date.parse("2026-05-01T12:00:00Z"),
      until: Date.parse("2026-05-02T00:00:00Z"),
    });
    expect(parseCompareWindow("7d", current, now)).toEqual({
      since: Date.parse("2026-04-25T00:00:00Z"),
      until: Date.parse("2026-04-25T12:00:00Z"),
    });
    expect(parseCompareWindow("2026-04-01..2026-04-02", current, now)).toEqual({
      since: Date.parse("2026-04-01"),
      until: Date.parse("2026-04-02"),
    });
    expect(() => parseCompareWindow("previous", { since: null, until: null }, now)).toThrow(
      /--compare needs .* --since/,
    );
    expect(() => parseCompareWindow("last week", current, now)).toThrow(/previous/);
  });
});
