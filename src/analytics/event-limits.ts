/**
 * @module
 * The sane ranges of a call event's values ({@link eventLimits}) and the plain checks of a name
 * and a count that the event readers share. A record outside them is malformed (see
 * `event-schema.ts`).
 */

/** The sane ranges of an event's values. */
export const eventLimits = {
  /** 2000-01-01T00:00:00Z (inclusive) … 2200-01-01T00:00:00Z (exclusive). */
  minTime: Date.UTC(2000, 0, 1),
  maxTime: Date.UTC(2200, 0, 1),
  maxNameLength: 256,
  maxIdLength: 512,
  maxStep: 999,
  maxStatus: 999,
  maxLatencyMs: 86_400_000,
  maxTokens: 10_000_000_000,
  maxCost: 1_000_000,
  maxAttempts: 1_000,
} as const;

/** A string of at most `maxNameLength` characters. */
export function isName(value: unknown): value is string {
  return typeof value === "string" && value.length <= eventLimits.maxNameLength;
}

/** A whole number from 0 to `max`. */
export function isCount(value: unknown, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= max;
}
