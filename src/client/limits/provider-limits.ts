/**
 * @module
 * `stepwise-gateway/client/limits`: provider limits known before they bite, for
 * `createGatewayClient({ limits: createProviderLimits({ caps }) })`. A separate entry: a client
 * without it does not carry it.
 *
 * Each answer's rate-limit headers (`x-ratelimit-*`, `anthropic-ratelimit-*`, `retry-after`) say
 * how many requests and tokens its provider/model has left and when they come back; configured
 * caps (requests and tokens per minute, per provider or per `provider/model`, e.g. the
 * `keys.caps` of the config) are counted by the client over the last minute. Before each
 * universal attempt, a step whose provider said no requests or tokens are left (until the reset),
 * asked to wait (`retry-after`), or whose caps are spent is left out of the attempt instead of
 * spending it on a certain 429; the call's event lists it in `skippedSteps`. When every step is
 * out, the call ends at once with `AllStepsAtCapError` and sends nothing.
 *
 * The counts are this client's (one process); other processes sharing the quota show up only in
 * the provider's headers. Time comes from `now`, so tests drive it without sleeping.
 */

import { type RateLimitReading, readRateLimits } from "../../wire/rate-limit-headers.ts";
import type { RouteStep, SteeredStep, SteeringNotes, StepLimits } from "../types.ts";
import { answerTokens } from "./answer-tokens.ts";
import { AllStepsAtCapError } from "./at-cap-error.ts";

export {
  parseDuration,
  type RateLimitReading as QuotaReading,
  readRateLimits as readQuota,
} from "../../wire/rate-limit-headers.ts";
export { AllStepsAtCapError } from "./at-cap-error.ts";

/** A provider's quota as this client knows it. */
type QuotaReading = RateLimitReading;

const noReading: QuotaReading = {
  requestsRemaining: null,
  requestsResetAt: null,
  tokensRemaining: null,
  tokensResetAt: null,
  retryAt: null,
};

/** `older` with what `newer` said in place of what it held. */
function merged(older: QuotaReading | undefined, newer: QuotaReading | null): QuotaReading {
  const base = older ?? noReading;
  if (newer === null) return base;
  return {
    requestsRemaining: newer.requestsRemaining ?? base.requestsRemaining,
    requestsResetAt: newer.requestsResetAt ?? base.requestsResetAt,
    tokensRemaining: newer.tokensRemaining ?? base.tokensRemaining,
    tokensResetAt: newer.tokensResetAt ?? base.tokensResetAt,
    retryAt: newer.retryAt ?? base.retryAt,
  };
}

/** A configured cap: requests and tokens per minute. */
export interface RateCap {
  readonly rpm?: number;
  readonly tpm?: number;
}

/** Settings of {@link createProviderLimits}. */
export interface ProviderLimitsOptions {
  /**
   * Caps by `provider` (every model of it together) or `provider/model`; both apply when both
   * are given. E.g. `{ openai: { rpm: 500 }, "anthropic/claude-sonnet-4-5": { tpm: 40000 } }`.
   */
  readonly caps?: Readonly<Record<string, RateCap>>;
  /** Clock in epoch ms. Default: `Date.now`, looked up at call time. */
  readonly now?: () => number;
}

/** What one provider/model's limits look like now, as `limits.status()` reports it. */
export interface LimitStatus {
  readonly key: string;
  /** The last quota its headers published. */
  readonly quota: QuotaReading;
  readonly requestsThisMinute: number;
  readonly tokensThisMinute: number;
}

/** The client's provider limits: a {@link StepGuard} plus a view of what it knows. */
export interface ProviderLimits extends StepLimits {
  /** Each provider/model or provider it has heard of or counts a cap for. */
  status(): LimitStatus[];
}

const minuteMs = 60_000;

/** Requests and tokens of the last minute, oldest first. */
class MinuteWindow {
  private readonly entries: { at: number; tokens: number }[] = [];

  add(at: number, tokens: number): void {
    this.entries.push({ at, tokens });
  }

  /** Drops what is older than a minute; returns the requests and tokens left. */
  totals(now: number): { requests: number; tokens: number; oldest: number | undefined } {
    while (this.entries.length > 0 && this.entries[0]!.at <= now - minuteMs) this.entries.shift();
    let tokens = 0;
    for (const entry of this.entries) tokens += entry.tokens;
    return { requests: this.entries.length, tokens, oldest: this.entries[0]?.at };
  }

  /** The newest request, whose tokens come once its answer was read. */
  newest(): { at: number; tokens: number } | undefined {
    return this.entries.at(-1);
  }
}

/** Why a step is at its limit and until when, or undefined when it may be sent. */
interface Verdict {
  readonly reason: string;
  readonly until: number;
}

/**
 * Creates the client's provider limits: see the module description.
 * @example
 * import { createProviderLimits } from "stepwise-gateway/client/limits";
 * const client = createGatewayClient({
 *   accountId, gatewayId, routes: gateway.routes,
 *   limits: createProviderLimits({ caps: config.keys.caps }), // e.g. { openai: { rpm: 500, tpm: 200000 } }
 * });
 */
export function createProviderLimits(options: ProviderLimitsOptions = {}): ProviderLimits {
  const caps = options.caps ?? {};
  for (const [key, cap] of Object.entries(caps)) {
    for (const field of ["rpm", "tpm"] as const) {
      const value = cap?.[field];
      if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
        throw new TypeError(
          `createProviderLimits: caps["${key}"].${field} must be a whole number of at least 1, got ${value}; leave it out for no cap`,
        );
      }
    }
  }
  const now = () => (options.now ?? Date.now)();
  const quotas = new Map<string, QuotaReading>();
  const windows = new Map<string, MinuteWindow>();
  const capKeys = (step: RouteStep) =>
    [step.provider, `${step.provider}/${step.model}`].filter((key) => caps[key] !== undefined);

  function verdict(step: RouteStep, at: number): Verdict | undefined {
    const quota = quotas.get(`${step.provider}/${step.model}`);
    if (quota?.retryAt != null && quota.retryAt > at) {
      return { reason: "retry_after", until: quota.retryAt };
    }
    if (quota?.requestsRemaining === 0 && (quota.requestsResetAt ?? 0) > at) {
      return { reason: "requests_at_cap", until: quota.requestsResetAt! };
    }
    if (quota?.tokensRemaining === 0 && (quota.tokensResetAt ?? 0) > at) {
      return { reason: "tokens_at_cap", until: quota.tokensResetAt! };
    }
    for (const key of capKeys(step)) {
      const cap = caps[key]!;
      const { requests, tokens, oldest } = windows.get(key)?.totals(at) ?? {
        requests: 0,
        tokens: 0,
        oldest: undefined,
      };
      const until = (oldest ?? at) + minuteMs;
      if (cap.rpm !== undefined && requests >= cap.rpm) return { reason: "rpm_cap", until };
      if (cap.tpm !== undefined && tokens >= cap.tpm) return { reason: "tpm_cap", until };
    }
    return undefined;
  }

  return {
    order<Step extends RouteStep & { readonly index: number }>(
      steps: readonly Step[],
      notes: SteeringNotes,
    ): readonly Step[] {
      // A dynamic route's chain is the gateway's to run: the client cannot leave a step out.
      if (notes.mode === "dynamic") return steps;
      const at = now();
      const kept: Step[] = [];
      const skipped: SteeredStep[] = [];
      let firstFree = Number.POSITIVE_INFINITY;
      for (const step of steps) {
        const limit = verdict(step, at);
        if (limit === undefined) {
          kept.push(step);
          continue;
        }
        firstFree = Math.min(firstFree, limit.until);
        const { index, provider, model } = step;
        skipped.push({ step: index, provider, model, action: "skipped", reason: limit.reason });
      }
      if (skipped.length > 0) {
        notes.steered ??= [];
        notes.steered.push(...skipped);
      }
      if (kept.length === 0 && steps.length > 0) {
        throw new AllStepsAtCapError({ skipped, retryAfterMs: Math.max(0, firstFree - at) });
      }
      return skipped.length === 0 ? steps : kept;
    },

    observe(step: RouteStep | undefined, response: Response): void {
      if (step === undefined) return;
      const at = now();
      const key = `${step.provider}/${step.model}`;
      const counted = capKeys(step);
      for (const capKey of counted) {
        const window = windows.get(capKey) ?? new MinuteWindow();
        windows.set(capKey, window);
        window.add(at, 0);
      }
      // Tokens come with the answer's end, from a copy of its body: only a tpm cap needs them.
      if (response.ok && counted.some((capKey) => caps[capKey]!.tpm !== undefined)) {
        const entries = counted.map((capKey) => windows.get(capKey)!.newest());
        answerTokens(response.clone()).then((tokens) => {
          for (const entry of entries) if (entry) entry.tokens += tokens;
        });
      }
      const reading = readRateLimits(response.headers, at);
      const { status } = response;
      // A 429 adds to what was known; an answer replaces it (the provider took a request again).
      if (status === 429) quotas.set(key, merged(quotas.get(key), reading));
      else if (status < 400 || reading !== null) quotas.set(key, reading ?? noReading);
    },

    status(): LimitStatus[] {
      const at = now();
      const keys = new Set([...quotas.keys(), ...windows.keys()]);
      return [...keys].sort().map((key) => {
        const totals = windows.get(key)?.totals(at);
        return {
          key,
          quota: quotas.get(key) ?? noReading,
          requestsThisMinute: totals?.requests ?? 0,
          tokensThisMinute: totals?.tokens ?? 0,
        };
      });
    },
  };
}
