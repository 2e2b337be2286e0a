/**
 * @module
 * Retry policy within one step, and its backoff. Precedence (first set wins): the universal
 * step's `config`, the step's `cf-aig-*` headers, the request's `cf-aig-*` headers, the gateway's
 * `retry_*` settings; without any, one attempt.
 *
 * Backoff before attempt n+1, after attempt n failed (Cloudflare does not document the formula):
 * constant = delay, linear = delay·n, exponential = delay·2^(n−1).
 */
import type { Backoff } from "../request/directives.ts";

export interface RetryPolicy {
  /** Attempts in total (1 = no retry). */
  readonly maxAttempts: number;
  readonly delayMs: number;
  readonly backoff: Backoff;
}

/** One layer of retry settings; every field optional. */
export interface RetrySettings {
  readonly maxAttempts?: number | null;
  readonly delayMs?: number | null;
  readonly backoff?: Backoff | null;
}

/** Resolves a policy from layers, most specific first. */
export function resolveRetryPolicy(...layers: readonly (RetrySettings | undefined)[]): RetryPolicy {
  const pick = <Key extends keyof RetrySettings>(key: Key) => {
    for (const layer of layers) {
      const value = layer?.[key];
      if (value !== undefined && value !== null) return value as NonNullable<RetrySettings[Key]>;
    }
    return undefined;
  };
  return {
    maxAttempts: Math.min(5, Math.max(1, pick("maxAttempts") ?? 1)),
    delayMs: Math.max(0, pick("delayMs") ?? 0),
    backoff: pick("backoff") ?? "constant",
  };
}

/**
 * The wait before the next attempt after attempt `failedAttempt` (1-based) failed.
 * @example backoffDelay({ maxAttempts: 4, delayMs: 100, backoff: "exponential" }, 3) // 400
 */
export function backoffDelay(policy: RetryPolicy, failedAttempt: number): number {
  switch (policy.backoff) {
    case "constant":
      return policy.delayMs;
    case "linear":
      return policy.delayMs * failedAttempt;
    case "exponential":
      return policy.delayMs * 2 ** (failedAttempt - 1);
  }
}
