/**
 * @module
 * One pool key's condition as pure decisions: what an answer (or a fall-through in a universal
 * chain) does to it, and whether the key may be sent now. A key is skipped only after a certain
 * 429 (until `retry-after` or the provider's reset) and while it is at a cap (the provider's
 * published remaining quota is 0 until its reset, or the configured `rpm`/`tpm` of the minute are
 * spent). A 429 without provider timing (20 s, doubling), a 401/403 (5 minutes) or a fall-through
 * to another key of the same provider (10 s, doubling) only makes it doubtful: the pool plan tries
 * it after the usable keys, never leaves it out. A new version of the key starts clean.
 */
import type { KeyCaps } from "../../config/schema.ts";
import type { RateLimitReading } from "../../wire/rate-limit-headers.ts";

/** What one call did with a key. */
export type KeyOutcome =
  | { readonly kind: "answered"; readonly status: number; readonly quota: RateLimitReading | null }
  /** A universal step with this key failed and a later key of the same provider served. */
  | { readonly kind: "fell-through" };

/**
 * `rate-limited`: a 429 with a known retry time (skipped until then); `throttled`: a 429 without
 * provider timing (doubtful: tried after the usable keys, never left out).
 */
export type CoolingReason = "rate-limited" | "throttled" | "refused" | "fell-through";

/** The latest known condition of one version of a key. */
export interface KeyCondition {
  readonly version: string;
  /** Epoch ms of the observation this comes from; the latest observation wins. */
  readonly observedAt: number;
  readonly coolingUntil: number | null;
  readonly reason: CoolingReason | null;
  /** Failures in a row (backoff). */
  readonly streak: number;
  /** The provider's rate-limit headers on the latest answer. */
  readonly quota: RateLimitReading | null;
  readonly lastStatus: number | null;
}

/** Requests and tokens of one calendar minute. */
export interface MinuteWindow {
  /** Epoch ms of the minute's start. */
  readonly minute: number;
  readonly requests: number;
  readonly tokens: number;
}

/** Whether a key may be sent now. */
export type Availability =
  | { readonly available: true }
  | {
      readonly available: false;
      readonly state: "cooling-down" | "at-cap";
      /** Epoch ms when it may be sent again. */
      readonly until: number;
      readonly reason: string;
    };

const second = 1000;
const minute = 60 * second;
const maxCoolingMs = 5 * minute;
const refusedCoolingMs = 5 * minute;

export function minuteOf(now: number): number {
  return now - (now % minute);
}

/** The condition after an outcome. */
export function nextCondition(
  previous: KeyCondition | undefined,
  version: string,
  outcome: KeyOutcome,
  now: number,
): KeyCondition {
  const base = previous?.version === version ? previous : undefined;
  const streak = (base?.streak ?? 0) + 1;
  if (outcome.kind === "fell-through") {
    return {
      version,
      observedAt: now,
      coolingUntil: now + Math.min(maxCoolingMs, 10 * second * 2 ** (streak - 1)),
      reason: "fell-through",
      streak,
      quota: base?.quota ?? null,
      lastStatus: base?.lastStatus ?? null,
    };
  }
  const { status, quota } = outcome;
  const kept = quota ?? base?.quota ?? null;
  if (status === 429) {
    const reset = Math.max(quota?.requestsResetAt ?? 0, quota?.tokensResetAt ?? 0);
    const known = quota?.retryAt ?? (reset > now ? reset : null);
    const until = known ?? now + Math.min(maxCoolingMs, 20 * second * 2 ** (streak - 1));
    return {
      version,
      observedAt: now,
      coolingUntil: until,
      reason: known === null ? "throttled" : "rate-limited",
      streak,
      quota: kept,
      lastStatus: status,
    };
  }
  if (status === 401 || status === 403) {
    return {
      version,
      observedAt: now,
      coolingUntil: now + refusedCoolingMs,
      reason: "refused",
      streak,
      quota: kept,
      lastStatus: status,
    };
  }
  // A success clears the key; other failures (5xx, a bad request) are not the key's fault.
  const ok = status >= 200 && status < 300;
  return {
    version,
    observedAt: now,
    coolingUntil: ok ? null : (base?.coolingUntil ?? null),
    reason: ok ? null : (base?.reason ?? null),
    streak: ok ? 0 : (base?.streak ?? 0),
    quota: kept,
    lastStatus: status,
  };
}

/** Whether the key may be sent at `now`. */
export function availability(
  condition: KeyCondition | undefined,
  window: MinuteWindow | undefined,
  caps: KeyCaps | undefined,
  now: number,
): Availability {
  if (condition?.coolingUntil != null && condition.coolingUntil > now) {
    return {
      available: false,
      state: "cooling-down",
      until: condition.coolingUntil,
      reason: condition.reason ?? "cooling down",
    };
  }
  const quota = condition?.quota;
  if (quota != null && condition !== undefined) {
    const spent = [
      { left: quota.requestsRemaining, resetAt: quota.requestsResetAt, what: "requests" },
      { left: quota.tokensRemaining, resetAt: quota.tokensResetAt, what: "tokens" },
    ].find(
      (limit) =>
        limit.left !== null &&
        limit.left <= 0 &&
        (limit.resetAt ?? condition.observedAt + minute) > now,
    );
    if (spent !== undefined) {
      return {
        available: false,
        state: "at-cap",
        until: spent.resetAt ?? condition.observedAt + minute,
        reason: `the provider reported no ${spent.what} left`,
      };
    }
  }
  const current = window !== undefined && window.minute === minuteOf(now) ? window : undefined;
  if (current !== undefined && caps !== undefined) {
    if (caps.rpm !== undefined && current.requests >= caps.rpm) {
      return {
        available: false,
        state: "at-cap",
        until: current.minute + minute,
        reason: `rpm ${caps.rpm} reached`,
      };
    }
    if (caps.tpm !== undefined && current.tokens >= caps.tpm) {
      return {
        available: false,
        state: "at-cap",
        until: current.minute + minute,
        reason: `tpm ${caps.tpm} reached`,
      };
    }
  }
  return { available: true };
}

/** Adds a window's counts to another's: same minute adds up, a newer minute replaces. */
export function addWindow(
  a: MinuteWindow | undefined,
  b: MinuteWindow | undefined,
): MinuteWindow | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a.minute === b.minute) {
    return { minute: a.minute, requests: a.requests + b.requests, tokens: a.tokens + b.tokens };
  }
  return a.minute > b.minute ? a : b;
}

/** The later of two observations of the same key. */
export function laterCondition(
  a: KeyCondition | undefined,
  b: KeyCondition | undefined,
): KeyCondition | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.observedAt > a.observedAt ? b : a;
}
