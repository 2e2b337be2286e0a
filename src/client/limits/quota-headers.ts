/**
 * @module
 * Reads a provider's published remaining quota from an answer's rate-limit headers, as the
 * gateway passes them on:
 *
 * - OpenAI, Groq and other OpenAI-style providers: `x-ratelimit-remaining-requests`,
 *   `x-ratelimit-remaining-tokens`, `x-ratelimit-reset-requests` / `-tokens` (a duration such as
 *   `1s`, `6m0s`, `20ms`, `2m59.56s`, or seconds);
 * - Anthropic: `anthropic-ratelimit-requests-remaining`, `-tokens-remaining` (and
 *   `-input-tokens-` / `-output-tokens-`), `-reset` (an RFC 3339 time);
 * - `retry-after` (seconds or an HTTP date) and `retry-after-ms`.
 */

/** What an answer's headers said about its provider's quota; times are epoch ms. */
export interface QuotaReading {
  readonly requestsRemaining?: number;
  readonly requestsResetAt?: number;
  readonly tokensRemaining?: number;
  readonly tokensResetAt?: number;
  /** Until when the provider asked not to be called (`retry-after`). */
  readonly retryAt?: number;
}

const durationUnits: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** A Go-style duration (`6m0s`, `20ms`, `1h2m`), or plain seconds, in ms; undefined if unreadable. */
export function parseDuration(text: string): number | undefined {
  const value = text.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  if (!/^(\d+(\.\d+)?(h|ms|m|s))+$/.test(value)) return undefined;
  let total = 0;
  for (const [, amount, , unit] of value.matchAll(/(\d+(\.\d+)?)(h|ms|m|s)/g)) {
    total += Number(amount) * durationUnits[unit!]!;
  }
  return total;
}

/** A reset header's time: a duration from now, or an absolute date. */
function resetTime(text: string | null, now: number): number | undefined {
  if (text === null) return undefined;
  const duration = parseDuration(text);
  if (duration !== undefined) return now + duration;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : date;
}

function count(text: string | null): number | undefined {
  if (text === null || !/^\s*\d+\s*$/.test(text)) return undefined;
  return Number(text);
}

/** The lowest of the counts given, or undefined when none was. */
function lowest(...values: (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
}

/** The reset of whichever header gave the lowest count. */
function resetOfLowest(pairs: [number | undefined, number | undefined][]): number | undefined {
  let best: [number, number | undefined] | undefined;
  for (const [remaining, reset] of pairs) {
    if (remaining !== undefined && (best === undefined || remaining < best[0])) {
      best = [remaining, reset];
    }
  }
  return best?.[1];
}

/** Reads the quota headers of one answer; an empty object when it sent none. */
export function readQuota(headers: Headers, now: number): QuotaReading {
  const reading: {
    -readonly [Field in keyof QuotaReading]: QuotaReading[Field];
  } = {};
  const anthropic = (name: string) => headers.get(`anthropic-ratelimit-${name}`);
  const requests = count(headers.get("x-ratelimit-remaining-requests"));
  const anthropicRequests = count(anthropic("requests-remaining"));
  reading.requestsRemaining = lowest(requests, anthropicRequests);
  reading.requestsResetAt = resetOfLowest([
    [requests, resetTime(headers.get("x-ratelimit-reset-requests"), now)],
    [anthropicRequests, resetTime(anthropic("requests-reset"), now)],
  ]);
  const tokenPairs: [number | undefined, number | undefined][] = [
    [
      count(headers.get("x-ratelimit-remaining-tokens")),
      resetTime(headers.get("x-ratelimit-reset-tokens"), now),
    ],
    ...["tokens", "input-tokens", "output-tokens"].map(
      (kind): [number | undefined, number | undefined] => [
        count(anthropic(`${kind}-remaining`)),
        resetTime(anthropic(`${kind}-reset`), now),
      ],
    ),
  ];
  reading.tokensRemaining = lowest(...tokenPairs.map(([remaining]) => remaining));
  reading.tokensResetAt = resetOfLowest(tokenPairs);
  const retryMs = headers.get("retry-after-ms")?.trim();
  const retryAfter = headers.get("retry-after")?.trim();
  if (retryMs && /^\d+(\.\d+)?$/.test(retryMs)) reading.retryAt = now + Number(retryMs);
  else if (retryAfter) reading.retryAt = resetTime(retryAfter, now);
  for (const field of Object.keys(reading) as (keyof QuotaReading)[]) {
    if (reading[field] === undefined) delete reading[field];
  }
  return reading;
}
