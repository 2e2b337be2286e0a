/**
 * @module
 * Time windows, buckets and comparison windows, as epoch milliseconds.
 *
 * - An instant is an ISO-8601 date or date-time (`2026-05-01`, `2026-05-01T12:00:00Z`), `now`,
 *   or a duration back from now (`24h`, `7d`, `90m`).
 * - A window is half-open: `[since, until)`. Either end may be open (null).
 * - A bucket size is a duration (`1m`, `5m`, `1h`, `1d`); buckets are aligned to the Unix epoch
 *   in UTC, so a `1d` bucket is a UTC day.
 * - A comparison window is `previous` (the window of the same length just before), a duration
 *   (`7d`: the same window shifted back by 7 days, week over week), or `<instant>..<instant>`.
 */
import { AnalyticsError } from "./errors.ts";

/** A half-open time window in epoch ms; null ends are open. */
export interface TimeWindow {
  readonly since: number | null;
  readonly until: number | null;
}

const units: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `5m` → 300000. Returns null when `text` is not a duration. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(text.trim());
  if (!match) return null;
  const value = Number(match[1]) * (units[match[2] ?? ""] ?? Number.NaN);
  return Number.isFinite(value) && value > 0 ? value : null;
}

/** Formats a duration in the largest whole unit: 300000 → `5m`. */
export function formatDuration(milliseconds: number): string {
  for (const unit of ["w", "d", "h", "m", "s"] as const) {
    const size = units[unit] ?? 1;
    if (milliseconds >= size && milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${milliseconds}ms`;
}

/**
 * Parses an instant (see module doc) relative to `now`.
 * @throws AnalyticsError naming `option` when `text` is not an instant.
 */
export function parseInstant(text: string, now: number, option: string): number {
  const trimmed = text.trim();
  if (trimmed === "now") return now;
  const duration = parseDuration(trimmed);
  if (duration !== null) return now - duration;
  if (/^\d{4}-\d{2}-\d{2}/.test(trimmed)) {
    const parsed = Date.parse(trimmed);
    if (!Number.isNaN(parsed)) return parsed;
  }
  throw invalidOption(
    `${option} "${text}" is not a time. Use an ISO-8601 time (2026-05-01T12:00:00Z), a date ` +
      "(2026-05-01), `now`, or a duration back from now (24h, 7d).",
  );
}

/** Parses `--since` / `--until`. With `--since` alone the window ends now. */
export function parseWindow(
  since: string | undefined,
  until: string | undefined,
  now: number,
): TimeWindow {
  const start = since === undefined ? null : parseInstant(since, now, "--since");
  const end =
    until === undefined ? (start === null ? null : now) : parseInstant(until, now, "--until");
  if (start !== null && end !== null && end <= start) {
    throw invalidOption(
      `--until (${new Date(end).toISOString()}) must be after --since (${new Date(start).toISOString()}).`,
    );
  }
  return { since: start, until: end };
}

/** Parses `--bucket`. */
export function parseBucket(text: string): number {
  const size = parseDuration(text);
  if (size === null || size < 1000) {
    throw invalidOption(
      `--bucket "${text}" is not a bucket size. Use a duration of at least 1s: 1m, 5m, 1h, 1d.`,
    );
  }
  return size;
}

/** The baseline window `--compare <text>` names for `current` (which must be closed). */
export function parseCompareWindow(text: string, current: TimeWindow, now: number): TimeWindow {
  if (current.since === null || current.until === null) {
    throw invalidOption(
      "--compare needs a closed window to compare with: add --since (and optionally --until), " +
        "e.g. --since 24h --compare previous.",
    );
  }
  const trimmed = text.trim();
  if (trimmed === "previous") {
    const length = current.until - current.since;
    return { since: current.since - length, until: current.since };
  }
  const shift = parseDuration(trimmed);
  if (shift !== null) return { since: current.since - shift, until: current.until - shift };
  const parts = trimmed.split("..");
  if (parts.length === 2 && parts[0] && parts[1]) {
    const since = parseInstant(parts[0], now, "--compare");
    const until = parseInstant(parts[1], now, "--compare");
    if (until > since) return { since, until };
  }
  throw invalidOption(
    `--compare "${text}" is not a window. Use \`previous\`, a shift back such as 7d, or ` +
      "<since>..<until> (2026-04-01..2026-04-02).",
  );
}

/** True when `time` (epoch ms) lies in the window. */
export function inWindow(window: TimeWindow, time: number): boolean {
  return (
    (window.since === null || time >= window.since) &&
    (window.until === null || time < window.until)
  );
}

/** Start of the bucket holding `time`. */
export function bucketStart(time: number, size: number): number {
  return Math.floor(time / size) * size;
}

function invalidOption(message: string): AnalyticsError {
  return new AnalyticsError({ code: "analytics_invalid_option", message });
}

/**
 * Automatic bucket sizes, each a whole multiple of the one before, so finer buckets merge into
 * coarser ones exactly: 1s 5s 10s 30s 1m 5m 15m 30m 1h 3h 6h 12h 1d 7d.
 */
export const autoBucketSizes: readonly number[] = [
  1_000, 5_000, 10_000, 30_000, 60_000, 300_000, 900_000, 1_800_000, 3_600_000, 10_800_000,
  21_600_000, 43_200_000, 86_400_000, 604_800_000,
];

/** An automatic series aims at no more than this many buckets (and at least about 30). */
export const maxAutoBuckets = 120;

/** Buckets of `size` that `[first, last]` touches. */
export function bucketsSpanned(first: number, last: number, size: number): number {
  return bucketStart(last, size) / size - bucketStart(first, size) / size + 1;
}

/**
 * The automatic bucket size for events from `first` to `last` (epoch ms): the smallest of
 * {@link autoBucketSizes} that needs at most {@link maxAutoBuckets} buckets, so a 20-second demo
 * gets 1 s bars and a month 6 h bars (between about 30 and 120 either way); never finer than
 * `atLeast`.
 */
export function chooseAutoBucket(first: number, last: number, atLeast = 0): number {
  for (const size of autoBucketSizes) {
    if (size < atLeast) continue;
    if (bucketsSpanned(first, last, size) <= maxAutoBuckets) return size;
  }
  return autoBucketSizes.at(-1) ?? 604_800_000;
}
