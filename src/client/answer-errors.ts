/**
 * @module
 * The errors about answers: a non-2xx answer ({@link ApiCallError}, {@link AuthenticationError},
 * {@link RateLimitedError}), none at all ({@link NetworkError}, {@link TimeoutError}), one the
 * client cannot read ({@link InvalidResponseError}, {@link IncompleteStreamError}). The errors
 * of a whole route (no step left, every answer refused) are in `route-errors.ts`. `failover.ts`
 * and the stream reader make them.
 */

import { retryAfterMs } from "../wire/rate-limit-headers.ts";
import { GatewayError, type StepReference } from "./call-errors.ts";

/** ` from step 1 (openai/gpt-4o-mini)`, or nothing when no step is named: for messages. */
export function stepLabel(step: StepReference | undefined): string {
  return step === undefined ? "" : ` from step ${step.index} (${step.provider}/${step.model})`;
}

/** ` (what the server said)`, or nothing when it said nothing: for messages. */
function saying(detail: string | undefined): string {
  return detail === undefined ? "" : ` (${detail})`;
}

/** Longest response body kept on an error, in characters. */
export const maxResponseBodyLength = 4_000;

/** Options for {@link ApiCallError} and its subclasses. */
export interface ApiCallErrorOptions {
  readonly status: number;
  readonly url: string;
  /** Overrides the message built from the status and `detail`. */
  readonly message?: string;
  /** What the server said went wrong (the provider's or the gateway's error message). */
  readonly detail?: string | undefined;
  /** The provider's or gateway's own error type or code, e.g. `rate_limit_error`, `2009`. */
  readonly errorType?: string | undefined;
  /** `cf-aig-request-id` (or the log id when the gateway sent no request id). */
  readonly requestId?: string | undefined;
  /** `cf-aig-log-id`. */
  readonly logId?: string | undefined;
  /** The response body as text, cut to {@link maxResponseBodyLength} characters. */
  readonly responseBody?: string | undefined;
  readonly step?: StepReference | undefined;
  /** Defaults to true for 408, 409, 429 and 5xx. */
  readonly isRetryable?: boolean;
  readonly cause?: unknown;
}

/** Options for {@link ApiCallError.fromResponse}. */
export interface FromResponseOptions {
  readonly status: number;
  readonly url: string;
  readonly headers?: Headers;
  readonly responseBody?: string;
  readonly detail?: string;
  readonly errorType?: string;
  readonly step?: StepReference | undefined;
  /** Clock for `Retry-After` dates; `Date.now` by default. */
  readonly now?: () => number;
}

/** True for statuses worth another attempt: 408, 409, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * A non-2xx answer from the gateway or, through it, a provider. Code `api_call_error`.
 * @example
 * if (ApiCallError.isInstance(error)) console.log(error.status, error.logId, error.responseBody);
 */
export class ApiCallError extends GatewayError {
  static override readonly kind: string = "stepwise.ApiCallError";
  declare readonly status: number;
  declare readonly url: string;
  declare readonly requestId: string | undefined;
  declare readonly logId: string | undefined;
  declare readonly responseBody: string | undefined;
  /** The provider's or gateway's own error type or code. */
  declare readonly errorType: string | undefined;

  constructor(options: ApiCallErrorOptions, code = "api_call_error") {
    const detail = options.detail === undefined ? "" : `: ${options.detail}`;
    super({
      code,
      message:
        options.message ??
        `The gateway answered HTTP ${options.status}${stepLabel(options.step)}${detail}.`,
      isRetryable: options.isRetryable ?? isRetryableStatus(options.status),
      step: options.step,
      cause: options.cause,
    });
    this.status = options.status;
    this.url = options.url;
    this.requestId = options.requestId;
    this.logId = options.logId;
    this.responseBody = options.responseBody?.slice(0, maxResponseBodyLength);
    this.errorType = options.errorType;
  }

  /**
   * The error for a non-2xx response: {@link AuthenticationError} for 401/403,
   * {@link RateLimitedError} for 429 (with `Retry-After`), else {@link ApiCallError}.
   * @example
   * throw ApiCallError.fromResponse({ status: response.status, url, headers: response.headers });
   */
  static fromResponse(options: FromResponseOptions): ApiCallError {
    const { status, headers } = options;
    const logId = headers?.get("cf-aig-log-id") ?? undefined;
    const common = { ...options, logId, requestId: headers?.get("cf-aig-request-id") ?? logId };
    return status === 401 || status === 403
      ? new AuthenticationError(common)
      : status === 429
        ? new RateLimitedError({
            ...common,
            retryAfterMs: parseRetryAfter(headers, options.now ?? Date.now),
          })
        : new ApiCallError(common);
  }
}

/**
 * The gateway token or a provider key was missing or refused (401/403). Code
 * `authentication_failed`; not retryable.
 */
export class AuthenticationError extends ApiCallError {
  static override readonly kind: string = "stepwise.AuthenticationError";

  constructor(options: ApiCallErrorOptions) {
    super(
      {
        message:
          `Authentication failed: HTTP ${options.status}${stepLabel(options.step)}${saying(options.detail)}. Check ` +
          "gatewayToken (cf-aig-authorization) and the provider key: keyLookup, the companion Worker, BYOK " +
          "or Unified Billing (docs/client.md, Provider keys).",
        isRetryable: false,
        ...options,
      },
      "authentication_failed",
    );
  }
}

/** Options for {@link RateLimitedError}. */
export interface RateLimitedErrorOptions extends ApiCallErrorOptions {
  /** How long the server asked to wait, from `Retry-After` / `retry-after-ms`. */
  readonly retryAfterMs?: number | undefined;
}

/** The gateway or a provider rate-limited the call (429). Code `rate_limited`; retryable. */
export class RateLimitedError extends ApiCallError {
  static override readonly kind: string = "stepwise.RateLimitedError";
  /** How long the server asked to wait, when it said. */
  declare readonly retryAfterMs: number | undefined;

  constructor(options: RateLimitedErrorOptions) {
    const { retryAfterMs, detail } = options;
    super(
      {
        message:
          `Rate limited: HTTP 429${stepLabel(options.step)}${saying(detail)}.` +
          `${retryAfterMs === undefined ? "" : ` Retry after ${retryAfterMs} ms.`} Slow down, or raise the rate limit or quota.`,
        ...options,
      },
      "rate_limited",
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * Reads `retry-after-ms`, then `Retry-After` (seconds or an HTTP date), in whole ms rounded up
 * (the one reader, `src/wire/rate-limit-headers.ts`).
 */
export function parseRetryAfter(
  headers: Headers | undefined,
  now: () => number,
): number | undefined {
  return headers === undefined ? undefined : (retryAfterMs(headers, now()) ?? undefined);
}

/** A short description of a thrown value, for messages. */
function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  return cause.cause instanceof Error ? `${cause.message} (${cause.cause.message})` : cause.message;
}

/** `fetch` itself failed: DNS, a refused or reset connection. Code `network_error`; retryable. */
export class NetworkError extends GatewayError {
  static override readonly kind: string = "stepwise.NetworkError";
  declare readonly url: string;

  constructor({ url, cause }: { readonly url: string; readonly cause?: unknown }) {
    super({
      code: "network_error",
      message:
        `Could not reach the gateway at ${url}: ${describeCause(cause)}. Check baseUrl, the network, ` +
        "and that the gateway runs.",
      isRetryable: true,
      cause,
    });
    this.url = url;
  }
}

/** Options for {@link TimeoutError}. */
export interface TimeoutErrorOptions {
  readonly timeoutMs: number;
  readonly url: string;
  readonly step?: StepReference | undefined;
  /**
   * What timed out: `attempt` (no answer within `attemptTimeoutMs`), `first-token` (no text
   * within the step's first-token timeout) or `stream-idle` (a stream went quiet).
   */
  readonly phase?: "attempt" | "first-token" | "stream-idle";
}

const timeoutMessages = {
  attempt: ["The gateway did not answer", "attemptTimeoutMs, or lower the route's step timeouts"],
  "first-token": ["The stream sent no text", "the step's firstTokenTimeoutMs (or the client's)"],
  "stream-idle": ["The stream went quiet", "the step's idleTimeoutMs (or streamIdleTimeoutMs)"],
} as const;

/**
 * One attempt got no answer within `attemptTimeoutMs`, a stream sent no text within its
 * first-token timeout, or a stream went quiet for its idle timeout. Code `timeout`; retryable.
 */
export class TimeoutError extends GatewayError {
  static override readonly kind: string = "stepwise.TimeoutError";
  declare readonly timeoutMs: number;
  declare readonly url: string;
  declare readonly phase: "attempt" | "first-token" | "stream-idle";

  constructor({ timeoutMs, url, step, phase = "attempt" }: TimeoutErrorOptions) {
    const [what, fix] = timeoutMessages[phase];
    super({
      code: "timeout",
      message: `${what} within ${timeoutMs} ms${stepLabel(step)} (${url}). Raise ${fix}.`,
      isRetryable: true,
      step,
    });
    this.timeoutMs = timeoutMs;
    this.url = url;
    this.phase = phase;
  }
}

/** Options for {@link InvalidResponseError}. */
export interface InvalidResponseErrorOptions {
  readonly message: string;
  readonly url: string;
  readonly status: number;
  readonly step?: StepReference | undefined;
  readonly cause?: unknown;
}

/**
 * A 2xx answer the client cannot read: empty, not JSON, not the provider's shape, or a stream
 * with too many events that are not JSON. Code `invalid_response`; retryable (a later step may
 * answer properly).
 */
export class InvalidResponseError extends GatewayError {
  static override readonly kind: string = "stepwise.InvalidResponseError";
  declare readonly url: string;
  declare readonly status: number;

  constructor({ message, url, status, step, cause }: InvalidResponseErrorOptions) {
    super({ code: "invalid_response", message, isRetryable: true, step, cause });
    this.url = url;
    this.status = status;
  }
}

/** Options for {@link IncompleteStreamError}. */
export interface IncompleteStreamErrorOptions {
  readonly url: string;
  readonly step?: StepReference | undefined;
  /** Characters of text received before the stream stopped. */
  readonly receivedCharacters: number;
  readonly cause?: unknown;
}

/**
 * A stream that ended (or broke) before the provider's completion signal (`finish_reason`,
 * `message_stop`, Gemini's `finishReason`, `[DONE]`). Never treated as a success: the answer may
 * be cut mid-sentence. Code `incomplete_stream`; retryable.
 */
export class IncompleteStreamError extends GatewayError {
  static override readonly kind: string = "stepwise.IncompleteStreamError";
  declare readonly url: string;
  declare readonly receivedCharacters: number;

  constructor({ url, step, receivedCharacters, cause }: IncompleteStreamErrorOptions) {
    super({
      code: "incomplete_stream",
      message:
        `The stream${stepLabel(step)} ${cause === undefined ? "ended" : "broke"} before the provider ` +
        `said the answer was complete, after ${receivedCharacters} characters; retry, or check proxies for size or idle limits.`,
      isRetryable: true,
      step,
      cause,
    });
    this.url = url;
    this.receivedCharacters = receivedCharacters;
  }
}
