/**
 * @module
 * The one reader of rate-limit headers, used by the client, the companion Worker and the
 * emulator alike. Formats read (anything else is ignored, never guessed):
 *
 * | header | format |
 * |---|---|
 * | `retry-after` | seconds (`7`, `1.5`) or an HTTP date (RFC 9110 §10.2.3) |
 * | `retry-after-ms` | milliseconds (`318`, `12.5`), as OpenAI sends it; wins over `retry-after` |
 * | `x-ratelimit-remaining-requests` / `-tokens` | a whole count (OpenAI, Groq, Mistral, DeepSeek, xAI…) |
 * | `x-ratelimit-reset-requests` / `-tokens` | a Go duration (`1s`, `6m0s`, `2m59.56s`, `20ms`) or seconds |
 * | `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining` | a whole count |
 * | `anthropic-ratelimit-…-reset` | an RFC 3339 time (a duration is read too) |
 *
 * One reading shape ({@link RateLimitReading}: epoch ms, `null` for what the answer did not say)
 * and one reset rule: a count is the lowest of the counts sent (the limit that binds), and its
 * reset is the reset sent beside that count (on a tie, the latest of theirs); with no count, the
 * latest reset sent. Waits are whole milliseconds, rounded up, never negative.
 */

/** Where headers are read from: `Headers`, or anything with a case-insensitive `get`. */
export interface HeaderSource {
  get(name: string): string | null | undefined;
}

/** What one answer's headers said about its provider's quota; times are epoch ms. */
export interface RateLimitReading {
  readonly requestsRemaining: number | null;
  readonly requestsResetAt: number | null;
  readonly tokensRemaining: number | null;
  readonly tokensResetAt: number | null;
  /** Until when the provider asked not to be called (`retry-after-ms`, `retry-after`). */
  readonly retryAt: number | null;
}

const decimal = /^\d+(?:\.\d+)?$/;
const units: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 0.000_001,
};
const durationPart = /(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g;

/** A Go duration (`6m0s`, `20ms`, `1h2m`) or plain seconds, in ms; null if unreadable. */
export function parseDuration(text: string): number | null {
  const value = text.trim();
  if (decimal.test(value)) return Number(value) * 1000;
  let total = 0;
  let matched = "";
  for (const [part, amount, unit] of value.matchAll(durationPart)) {
    total += Number(amount) * units[unit!]!;
    matched += part;
  }
  return matched !== "" && matched === value ? total : null;
}

/**
 * How long the answer asks the caller to wait, in whole ms (rounded up): `retry-after-ms`, else
 * `retry-after` in seconds or as an HTTP date (a past date is 0); null when it says nothing usable.
 */
export function retryAfterMs(headers: HeaderSource, now: number): number | null {
  const milliseconds = headers.get("retry-after-ms")?.trim();
  if (milliseconds && decimal.test(milliseconds)) return Math.ceil(Number(milliseconds));
  const value = headers.get("retry-after")?.trim();
  if (!value) return null;
  if (decimal.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil(date - now));
}

function count(text: string | null | undefined): number | null {
  const value = text?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : null;
}

/** A reset header's time: a duration from now, or an absolute date. */
function resetAt(text: string | null | undefined, now: number): number | null {
  if (text === null || text === undefined || text.trim() === "") return null;
  const duration = parseDuration(text);
  if (duration !== null) return now + Math.ceil(duration);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : date;
}

/** The lowest count and the reset that goes with it (the rule in the module header). */
function binding(
  limits: readonly (readonly [number | null, number | null])[],
): [number | null, number | null] {
  let lowest: number | null = null;
  for (const [remaining] of limits) {
    if (remaining !== null && (lowest === null || remaining < lowest)) lowest = remaining;
  }
  const resets = limits
    .filter(([remaining]) => lowest === null || remaining === lowest)
    .map(([, reset]) => reset)
    .filter((reset): reset is number => reset !== null);
  return [lowest, resets.length === 0 ? null : Math.max(...resets)];
}

/** Reads the rate-limit headers of one answer; null when it carries none. */
export function readRateLimits(headers: HeaderSource, now: number): RateLimitReading | null {
  const openAi = (name: string) => headers.get(`x-ratelimit-${name}`);
  const anthropic = (name: string) => headers.get(`anthropic-ratelimit-${name}`);
  const [requestsRemaining, requestsResetAt] = binding([
    [count(openAi("remaining-requests")), resetAt(openAi("reset-requests"), now)],
    [count(anthropic("requests-remaining")), resetAt(anthropic("requests-reset"), now)],
  ]);
  const [tokensRemaining, tokensResetAt] = binding([
    [count(openAi("remaining-tokens")), resetAt(openAi("reset-tokens"), now)],
    ...["tokens", "input-tokens", "output-tokens"].map(
      (kind) =>
        [count(anthropic(`${kind}-remaining`)), resetAt(anthropic(`${kind}-reset`), now)] as const,
    ),
  ]);
  const wait = retryAfterMs(headers, now);
  const reading: RateLimitReading = {
    requestsRemaining,
    requestsResetAt,
    tokensRemaining,
    tokensResetAt,
    retryAt: wait === null ? null : now + wait,
  };
  return Object.values(reading).every((value) => value === null) ? null : reading;
}
