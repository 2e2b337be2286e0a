/**
 * @module
 * Retry policy within one step, and its backoff. Precedence, field by field (first set wins):
 * the step's own settings (a universal step's `config`, a dynamic route's model element), the
 * step's `cf-aig-*` headers, the request's `cf-aig-*` headers, the gateway's `retry_*` settings;
 * without any, one attempt. The delay is at most 5 s
 * (request-handling.mdx). Cloudflare (usage/universal.mdx, "Header configuration hierarchy"):
 * "Provider-level headers override all other configurations. Request-level headers are used if no
 * provider-level headers are set. Gateway-level settings are used only if no headers are
 * configured at the provider or request levels."
 *
 * Backoff before attempt n+1, after attempt n failed (Cloudflare does not document the formula):
 * constant = delay, linear = delay·n, exponential = delay·2^(n−1).
 */
import type { Backoff, Directives } from "../request/directives.ts";
import { maxRetryDelayMs } from "../request/directives.ts";
import type { GatewaySettings } from "../state/gateway-settings.ts";

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

/** The `cf-aig-*` retry headers in force for a step: a universal step's merged over the request's. */
export type RetryDirectives = Pick<Directives, "maxAttempts" | "retryDelayMs" | "backoff">;

/** The gateway's retry defaults, as its settings hold them. */
export type GatewayRetrySettings = Pick<
  GatewaySettings,
  "retry_max_attempts" | "retry_delay" | "retry_backoff"
>;

/**
 * A step's retry policy: its own settings, else the headers in force, else the gateway's.
 * @example
 * stepRetryPolicy({ maxAttempts: 3 }, { retryDelayMs: 20 }, call.gateway.settings);
 * // maxAttempts 3 (step), delayMs 20 (header), backoff from the gateway (or constant)
 */
export function stepRetryPolicy(
  step: RetrySettings | undefined,
  directives: RetryDirectives,
  gateway: GatewayRetrySettings,
): RetryPolicy {
  return resolveRetryPolicy(
    step,
    {
      maxAttempts: directives.maxAttempts,
      delayMs: directives.retryDelayMs,
      backoff: directives.backoff,
    },
    {
      maxAttempts: gateway.retry_max_attempts,
      delayMs: gateway.retry_delay,
      backoff: gateway.retry_backoff,
    },
  );
}

/** Resolves a policy from layers, most specific first. */
function resolveRetryPolicy(...layers: readonly (RetrySettings | undefined)[]): RetryPolicy {
  const pick = <Key extends keyof RetrySettings>(key: Key) => {
    for (const layer of layers) {
      const value = layer?.[key];
      if (value !== undefined && value !== null) return value as NonNullable<RetrySettings[Key]>;
    }
    return undefined;
  };
  return {
    maxAttempts: Math.min(5, Math.max(1, pick("maxAttempts") ?? 1)),
    // A gateway's `retry_delay` may be stored up to 60000 (the Terraform range); the wait is
    // capped at the documented 5 s whatever the layer.
    delayMs: Math.min(maxRetryDelayMs, Math.max(0, pick("delayMs") ?? 0)),
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
