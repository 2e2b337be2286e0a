/**
 * @module
 * The one reader of rate-limit headers, format by format: the table below is every format the
 * client, the companion Worker and the emulator read (src/wire/rate-limit-headers.ts), with what
 * each reads from it. Formats: RFC 9110 §10.2.3 ("Retry-After: Fri, 31 Dec 1999 23:59:59 GMT",
 * "Retry-After: 120"), OpenAI's rate-limit headers ("x-ratelimit-reset-requests: 1s",
 * "x-ratelimit-reset-tokens: 6m0s") and Anthropic's ("anthropic-ratelimit-requests-reset: the
 * time when the request rate limit will be fully replenished, provided in RFC 3339 format").
 */
import { describe, expect, it } from "vitest";
import {
  parseDuration,
  type RateLimitReading,
  readRateLimits,
  retryAfterMs,
} from "../../src/wire/rate-limit-headers.ts";

const now = Date.parse("2026-05-01T12:00:00Z");
const none: RateLimitReading = {
  requestsRemaining: null,
  requestsResetAt: null,
  tokensRemaining: null,
  tokensResetAt: null,
  retryAt: null,
};

const table: [string, Record<string, string>, Partial<RateLimitReading> | null][] = [
  ["retry-after in seconds", { "retry-after": "7" }, { retryAt: now + 7_000 }],
  [
    "retry-after in decimal seconds, rounded up to a ms",
    { "retry-after": "0.0004" },
    { retryAt: now + 1 },
  ],
  [
    "retry-after as an HTTP date",
    { "retry-after": "Fri, 01 May 2026 12:01:00 GMT" },
    { retryAt: now + 60_000 },
  ],
  [
    "retry-after as a past HTTP date waits 0",
    { "retry-after": "Fri, 01 May 2026 11:00:00 GMT" },
    { retryAt: now },
  ],
  ["retry-after-ms, rounded up", { "retry-after-ms": "12.3" }, { retryAt: now + 13 }],
  [
    "retry-after-ms wins over retry-after",
    { "retry-after-ms": "318", "retry-after": "1" },
    { retryAt: now + 318 },
  ],
  [
    "an empty retry-after-ms is no wait (retry-after then read)",
    { "retry-after-ms": "", "retry-after": "2" },
    { retryAt: now + 2_000 },
  ],
  ["an unreadable retry-after is nothing", { "retry-after": "soon" }, null],
  ["a Go duration is not a Retry-After format", { "retry-after": "6m0s" }, null],
  [
    "OpenAI counts with Go-duration resets",
    {
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "6m0s",
      "x-ratelimit-remaining-tokens": "1200",
      "x-ratelimit-reset-tokens": "1m2.5s",
    },
    {
      requestsRemaining: 0,
      requestsResetAt: now + 360_000,
      tokensRemaining: 1200,
      tokensResetAt: now + 62_500,
    },
  ],
  [
    "Groq's fractional seconds and ms resets",
    {
      "x-ratelimit-remaining-tokens": "5",
      "x-ratelimit-reset-tokens": "7.66s",
      "x-ratelimit-remaining-requests": "9",
      "x-ratelimit-reset-requests": "20ms",
    },
    {
      requestsRemaining: 9,
      requestsResetAt: now + 20,
      tokensRemaining: 5,
      tokensResetAt: now + 7_660,
    },
  ],
  [
    "a reset in plain seconds",
    { "x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "2" },
    { requestsRemaining: 3, requestsResetAt: now + 2_000 },
  ],
  ["a count that is not whole is nothing", { "x-ratelimit-remaining-requests": "1.5" }, null],
  [
    "Anthropic counts with RFC 3339 resets; the lowest count's reset wins",
    {
      "anthropic-ratelimit-requests-remaining": "49",
      "anthropic-ratelimit-requests-reset": "2026-05-01T12:00:30Z",
      "anthropic-ratelimit-input-tokens-remaining": "0",
      "anthropic-ratelimit-input-tokens-reset": "2026-05-01T12:00:10Z",
      "anthropic-ratelimit-output-tokens-remaining": "8000",
      "anthropic-ratelimit-output-tokens-reset": "2026-05-01T12:00:50Z",
    },
    {
      requestsRemaining: 49,
      requestsResetAt: now + 30_000,
      tokensRemaining: 0,
      tokensResetAt: now + 10_000,
    },
  ],
  [
    "equal lowest counts: the latest of their resets",
    {
      "anthropic-ratelimit-tokens-remaining": "0",
      "anthropic-ratelimit-tokens-reset": "2026-05-01T12:00:05Z",
      "anthropic-ratelimit-output-tokens-remaining": "0",
      "anthropic-ratelimit-output-tokens-reset": "2026-05-01T12:00:20Z",
    },
    { tokensRemaining: 0, tokensResetAt: now + 20_000 },
  ],
  [
    "a reset without a count: the latest reset",
    {
      "x-ratelimit-reset-tokens": "5s",
      "anthropic-ratelimit-tokens-reset": "2026-05-01T12:00:09Z",
    },
    { tokensResetAt: now + 9_000 },
  ],
  ["no rate-limit headers", { "content-type": "application/json" }, null],
];

describe("rate-limit headers: one reader, every format", () => {
  it.each(table)("%s", (_name, headers, expected) => {
    const reading = readRateLimits(new Headers(headers), now);
    expect(reading).toEqual(expected === null ? null : { ...none, ...expected });
  });

  it("reads any header source with a get (the emulator's header pairs), not only Headers", () => {
    const pairs = new Map([["retry-after", "3"]]);
    expect(retryAfterMs({ get: (name) => pairs.get(name) }, now)).toBe(3_000);
    expect(retryAfterMs({ get: () => undefined }, now)).toBeNull();
  });

  it("reads Go durations: h, m, s, ms, µs, ns, combined, or plain seconds", () => {
    expect(parseDuration("1h2m3s")).toBe(3_723_000);
    expect(parseDuration("2m59.56s")).toBe(179_560);
    expect(parseDuration("20ms")).toBe(20);
    expect(parseDuration("1500µs")).toBe(1.5);
    expect(parseDuration("0s")).toBe(0);
    expect(parseDuration("2")).toBe(2_000);
    expect(parseDuration("soon")).toBeNull();
    expect(parseDuration("6m0sx")).toBeNull();
    expect(parseDuration("")).toBeNull();
  });
});
