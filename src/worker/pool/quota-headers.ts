/**
 * @module
 * What a provider's answer says about the key's remaining quota, read from its rate-limit
 * headers (passed through by the gateway):
 *
 * - OpenAI-style (OpenAI, Groq, Mistral, DeepSeek, xAI, OpenRouter…):
 *   `x-ratelimit-remaining-requests`, `x-ratelimit-remaining-tokens`, and their resets
 *   `x-ratelimit-reset-requests` / `-tokens` as a duration (`1s`, `6m0s`, `20ms`) or seconds;
 * - Anthropic: `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining` and
 *   `…-reset` as an RFC 3339 time;
 * - any: `retry-after` (seconds or an HTTP date) and `retry-after-ms`.
 *
 * Unknown or malformed values are ignored: a reading only ever holds what the answer said.
 */

/** A key's quota as one answer reported it (epoch ms for times). */
export interface QuotaReading {
  readonly requestsRemaining: number | null;
  readonly requestsResetAt: number | null;
  readonly tokensRemaining: number | null;
  readonly tokensResetAt: number | null;
  /** When the provider asked to be called again (`retry-after`). */
  readonly retryAt: number | null;
}

/** Reads the quota headers of an answer; null when it carries none. */
export function readQuota(headers: Headers, now: number): QuotaReading | null {
  const requestsRemaining = smallest([
    count(headers.get("x-ratelimit-remaining-requests")),
    count(headers.get("anthropic-ratelimit-requests-remaining")),
  ]);
  const tokensRemaining = smallest([
    count(headers.get("x-ratelimit-remaining-tokens")),
    count(headers.get("anthropic-ratelimit-tokens-remaining")),
    count(headers.get("anthropic-ratelimit-input-tokens-remaining")),
    count(headers.get("anthropic-ratelimit-output-tokens-remaining")),
  ]);
  const requestsResetAt = latest([
    resetIn(headers.get("x-ratelimit-reset-requests"), now),
    timeOf(headers.get("anthropic-ratelimit-requests-reset")),
  ]);
  const tokensResetAt = latest([
    resetIn(headers.get("x-ratelimit-reset-tokens"), now),
    timeOf(headers.get("anthropic-ratelimit-tokens-reset")),
    timeOf(headers.get("anthropic-ratelimit-input-tokens-reset")),
    timeOf(headers.get("anthropic-ratelimit-output-tokens-reset")),
  ]);
  const retryAt = retryAfter(headers, now);
  const reading = { requestsRemaining, requestsResetAt, tokensRemaining, tokensResetAt, retryAt };
  return Object.values(reading).every((value) => value === null) ? null : reading;
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date; null when absent. */
export function retryAfter(headers: Headers, now: number): number | null {
  const milliseconds = Number(headers.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return now + milliseconds;
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return null;
  if (/^\d+(?:\.\d+)?$/.test(value)) return now + Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(now, date) : null;
}

function count(value: string | null): number | null {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return null;
  return Number(value);
}

/** `6m0s`, `1.5s`, `20ms`, `1h2m`, or plain seconds → epoch ms. */
function resetIn(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return now + Number(text) * 1000;
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  let matched = "";
  for (const match of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) {
    total += Number(match[1]) * units[match[2]!]!;
    matched += match[0];
  }
  return matched === text && matched !== "" ? now + total : null;
}

function timeOf(value: string | null): number | null {
  if (value === null) return null;
  const time = Date.parse(value);
  return Number.isFinite(time) ? time : null;
}

function smallest(values: readonly (number | null)[]): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : Math.min(...known);
}

function latest(values: readonly (number | null)[]): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : Math.max(...known);
}
