/**
 * @module
 * Per-app rate limits: at most `limit` proxied requests per fixed window of `windowSeconds`,
 * counted in KV under `rate:{appId}:{windowStart}`. Over the limit the proxy answers 429 with
 * `Retry-After` (seconds until the window ends).
 *
 * KV has no atomic increment and is eventually consistent, so the count is approximate: each
 * Cloudflare location counts mostly what it sees, and concurrent requests may count once. It is
 * a fairness guard between apps; the gateway's own `rateLimit` is the hard limit.
 */
import type { KvNamespaceLike } from "./bindings.ts";
import { keyLayout, minimumKvTtlSeconds } from "./key-layout.ts";

/** A limit: `limit` requests per `windowSeconds`. */
export interface RateLimit {
  readonly limit: number;
  readonly windowSeconds: number;
}

/** The outcome of counting one request. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  /** Requests left in this window after this one. */
  readonly remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  readonly retryAfterSeconds: number;
  /** The counter write; pass to `waitUntil` so it does not delay the call. */
  readonly commit: Promise<void>;
}

/** Counts one request for an app. A failing KV write never fails the call. */
export async function countRequest(
  kv: KvNamespaceLike,
  appId: string,
  limit: RateLimit,
  nowMs: number,
): Promise<RateLimitDecision> {
  const windowMs = limit.windowSeconds * 1000;
  const windowStart = Math.floor(nowMs / windowMs) * windowMs;
  const key = keyLayout.rate(appId, windowStart);
  const seen = Number.parseInt((await kv.get(key, "text")) ?? "0", 10) || 0;
  const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMs - nowMs) / 1000));
  if (seen >= limit.limit) {
    return { allowed: false, remaining: 0, retryAfterSeconds, commit: Promise.resolve() };
  }
  const commit = kv
    .put(key, String(seen + 1), {
      expirationTtl: Math.max(minimumKvTtlSeconds, limit.windowSeconds * 2),
    })
    .catch(() => undefined);
  return { allowed: true, remaining: limit.limit - seen - 1, retryAfterSeconds, commit };
}
