/**
 * @module
 * Exact per-app limits: at most `limit` proxied requests per fixed window of `windowSeconds`,
 * counted by one `AppLimiter` Durable Object per app. The object handles one request at a time,
 * so the count is exact wherever the requests come from (no read-modify-write race, no KV write
 * per call). The count lives in memory and is saved (at most once a second, never holding up an
 * answer), so an object that restarts mid-window (a deploy, an eviction after idling) carries on
 * from it, forgetting at most the last second's calls of a busy app.
 */

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
}

/** The limiter's RPC method. */
export interface AppLimiterApi {
  /** Counts one request against `limit`; refused requests are not counted. */
  admit(limit: RateLimit): Promise<RateLimitDecision>;
}

/** The saved count of the current window. */
export interface WindowCount {
  readonly windowStart: number;
  readonly windowMs: number;
  readonly count: number;
}

/** Where a limiter saves its count (the Durable Object's storage). */
export interface CountStore {
  load(): Promise<WindowCount | undefined>;
  /** Saves without delaying the answer; may coalesce saves (the latest count wins). */
  save(count: WindowCount): void;
}

/** A fixed-window counter for one app. */
export class FixedWindowCounter implements AppLimiterApi {
  readonly #now: () => number;
  readonly #store: CountStore | undefined;
  #count: WindowCount | undefined;
  #loaded: Promise<void> | undefined;

  constructor(options: { now?: () => number; store?: CountStore } = {}) {
    this.#now = () => (options.now ?? Date.now)();
    this.#store = options.store;
  }

  async admit(limit: RateLimit): Promise<RateLimitDecision> {
    this.#loaded ??= this.#load();
    await this.#loaded;
    const now = this.#now();
    const windowMs = limit.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    const current =
      this.#count?.windowStart === windowStart && this.#count.windowMs === windowMs
        ? this.#count.count
        : 0;
    if (current >= limit.limit) return { allowed: false, remaining: 0, retryAfterSeconds };
    this.#count = { windowStart, windowMs, count: current + 1 };
    this.#store?.save(this.#count);
    return { allowed: true, remaining: limit.limit - current - 1, retryAfterSeconds };
  }

  async #load(): Promise<void> {
    const saved = await this.#store?.load();
    if (saved !== undefined && this.#count === undefined) this.#count = saved;
  }
}
