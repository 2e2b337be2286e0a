/**
 * @module
 * The contract between the emulated gateway and the mock providers behind it. Mock providers are
 * real HTTP servers on 127.0.0.1 that speak each provider's wire format, check keys and follow a
 * fault schedule; the gateway (and any test) reaches them only over HTTP through their base URLs.
 */

/** Every fault a mock provider can inject. */
export type FaultKind =
  | "rate-limit" // 429 with Retry-After (seconds in `retryAfterSeconds`, default 1)
  | "rate-limit-no-retry-after" // 429 without Retry-After
  | "server-error-once" // 500 on the first matching attempt, then healthy
  | "unavailable" // 503, persistent while the rule is active
  | "overloaded" // 529 (Anthropic's overloaded_error), persistent while active
  | "connection-reset" // socket destroyed before any header is sent
  | "no-response" // accepts the request and never answers (until the client gives up)
  | "slow-first-byte" // waits `delayMs` before sending headers, then answers normally
  | "stream-cut" // streams part of the answer, then destroys the socket
  | "stream-stall" // streams part of the answer, then stops sending (socket left open)
  | "malformed-chunk" // a stream with one chunk that is not valid JSON
  | "missing-done" // a stream that ends cleanly without its end marker ([DONE] / message_stop)
  | "stream-error" // streams part of the answer, then an error event in the provider's format
  | "stream-unfinished" // streams part of the answer, then ends cleanly with no finish reason or end marker
  | "prefill-refused" // 400 for a request that ends with an assistant message (a prefill); others are healthy
  | "context-length" // 400 context length exceeded, in the provider's error format (set `model` for one model only)
  | "content-filter" // 400 content filtered, in the provider's error format
  | "empty-body" // 200 with an empty body
  | "invalid-body" // 200 with a body that is not the provider's response shape
  | "down" // 503 between `fromMs` and `untilMs` (epoch ms, by the mock's clock), healthy outside
  // Guardrails outcomes, applied by the gateway (not the mock) with Cloudflare's statuses and
  // codes (features/guardrails/set-up-guardrail.mdx; changelog 2026-09-17):
  | "guardrail-prompt-blocked" // 424, code 2016 (the REST API's /ai/run: 422, code 2017); the provider is not called
  | "guardrail-response-blocked" // the provider answers, then 424, code 2017 (/ai/run: 422, code 2017)
  | "guardrail-no-credits" // 402, code 2021: the scanner needs more credits; the provider is not called
  | "guardrail-unavailable"; // 503, code 7013: the scanner is unavailable and a Block rule applies

/** One rule of a fault schedule. Rules are checked in order; the first active match applies. */
export interface FaultRule {
  readonly kind: FaultKind;
  /** Provider slug the rule applies to; all providers when absent. */
  readonly provider?: string;
  /** Model the rule applies to; all models when absent. */
  readonly model?: string;
  /** Probability in [0, 1] that a matching attempt is faulted (seeded); 1 when absent. */
  readonly rate?: number;
  /** Apply to at most this many attempts, then stop (e.g. 3 × 503 then healthy). */
  readonly count?: number;
  /** Active window by the mock's clock (epoch ms). */
  readonly fromMs?: number;
  readonly untilMs?: number;
  /** For `slow-first-byte`, `stream-stall`: how long to wait, in ms. */
  readonly delayMs?: number;
  /** For `rate-limit`. */
  readonly retryAfterSeconds?: number;
}

export interface FaultSchedule {
  /** Seed for `rate`-based faults, so a campaign is reproducible. */
  readonly seed?: number;
  readonly rules: readonly FaultRule[];
}

/** One request a mock provider received, with its timing and what it did. */
export interface MockAttempt {
  readonly provider: string;
  readonly model: string | null;
  readonly path: string;
  /** Epoch ms by the mock's clock when the request arrived. */
  readonly receivedAt: number;
  readonly stream: boolean;
  /** Status sent, or 0 when the connection was reset / never answered. */
  readonly status: number;
  /** Epoch ms by the mock's clock when the status line and headers went out; absent until then. */
  readonly respondedAt?: number;
  /** The fault applied, if any. */
  readonly fault: FaultKind | null;
  /** `valid`, `missing`, `wrong` or `revoked` key. */
  readonly auth: "valid" | "missing" | "wrong" | "revoked";
}

export interface MockProvidersOptions {
  /** Provider slugs to serve (built-in slugs and custom-*); each gets its own server. */
  readonly providers: readonly string[];
  /** Accepted keys per provider. A provider with no entry accepts any non-empty key. */
  readonly keys?: Readonly<Record<string, readonly string[]>>;
  readonly faults?: FaultSchedule;
  /** Clock for fault windows and attempt times; `Date.now` at call time by default. */
  readonly now?: () => number;
  /** Host to bind; always loopback. */
  readonly host?: "127.0.0.1";
}

export interface MockProviders {
  /** Base URL per provider slug, e.g. `{ openai: "http://127.0.0.1:41234/" }` (ends with `/`). */
  readonly urls: Readonly<Record<string, string>>;
  /** Every attempt seen, in arrival order. */
  readonly attempts: readonly MockAttempt[];
  setFaults(schedule: FaultSchedule): void;
  /** Replace the accepted keys of a provider (e.g. after a rotation). */
  setKeys(provider: string, keys: readonly string[]): void;
  /** Keys that answer 401 with a "revoked" message. */
  revokeKey(provider: string, key: string): void;
  clearAttempts(): void;
  close(): Promise<void>;
}
