/**
 * @module
 * HTTP errors: {@link ApiCallError} for any non-2xx answer, with the subclasses
 * {@link AuthenticationError} (401/403) and {@link RateLimitedError} (429). `fromResponse` picks
 * the subclass from the status, so callers never map statuses by hand.
 */

import { GatewayError, type StepReference, withStep } from "./gateway-error.ts";

/** Longest response body kept on an error, in characters. */
export const maxResponseBodyLength = 4_000;

/** Options for {@link ApiCallError} and its subclasses. */
export interface ApiCallErrorOptions {
  readonly status: number;
  readonly url: string;
  /** Overrides the message built from the status and `detail`. */
  readonly message?: string;
  /** What the server said went wrong (the provider's or the gateway's error message). */
  readonly detail?: string;
  /** The provider's or gateway's own error type or code, e.g. `rate_limit_error`, `2009`. */
  readonly errorType?: string;
  /** `cf-aig-request-id` (or the log id when the gateway sent no request id). */
  readonly requestId?: string;
  /** `cf-aig-log-id`. */
  readonly logId?: string;
  /** The response body as text, cut to {@link maxResponseBodyLength} characters. */
  readonly responseBody?: string;
  readonly step?: StepReference;
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
  readonly step?: StepReference;
  /** Clock for `Retry-After` dates; `Date.now` by default. */
  readonly now?: () => number;
}

/** True for statuses worth another attempt: 408, 409, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function stepLabel(step: StepReference | undefined): string {
  return step === undefined ? "" : ` from step ${step.index} (${step.provider}/${step.model})`;
}

/**
 * A non-2xx answer from the gateway or, through it, a provider. Code `api_call_error`.
 * @example
 * if (ApiCallError.isInstance(error)) console.log(error.status, error.logId, error.responseBody);
 */
export class ApiCallError extends GatewayError {
  static override readonly kind: string = "stepwise.ApiCallError";
  readonly status: number;
  readonly url: string;
  readonly requestId: string | undefined;
  readonly logId: string | undefined;
  readonly responseBody: string | undefined;
  /** The provider's or gateway's own error type or code. */
  readonly errorType: string | undefined;

  constructor(options: ApiCallErrorOptions, code = "api_call_error") {
    const detail = options.detail === undefined ? "" : `: ${options.detail}`;
    super({
      code,
      message:
        options.message ??
        `The gateway answered HTTP ${options.status}${stepLabel(options.step)}${detail}.`,
      isRetryable: options.isRetryable ?? isRetryableStatus(options.status),
      ...withStep(options.step),
      cause: options.cause,
    });
    this.name = "ApiCallError";
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
    const headers = options.headers;
    const logId = headers?.get("cf-aig-log-id") ?? undefined;
    const common: ApiCallErrorOptions = {
      status: options.status,
      url: options.url,
      ...(options.detail === undefined ? {} : { detail: options.detail }),
      ...(options.errorType === undefined ? {} : { errorType: options.errorType }),
      ...(options.responseBody === undefined ? {} : { responseBody: options.responseBody }),
      ...withStep(options.step),
      ...(logId === undefined ? {} : { logId }),
      ...optionalRequestId(headers?.get("cf-aig-request-id") ?? logId),
    };
    if (options.status === 401 || options.status === 403) return new AuthenticationError(common);
    if (options.status === 429) {
      const retryAfterMs = parseRetryAfter(headers, options.now ?? Date.now);
      return new RateLimitedError({
        ...common,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    return new ApiCallError(common);
  }
}

function optionalRequestId(requestId: string | undefined): { requestId?: string } {
  return requestId === undefined ? {} : { requestId };
}

/**
 * The gateway token or a provider key was missing or refused (401/403). Code
 * `authentication_failed`; not retryable.
 */
export class AuthenticationError extends ApiCallError {
  static override readonly kind: string = "stepwise.AuthenticationError";

  constructor(options: ApiCallErrorOptions) {
    const detail = options.detail === undefined ? "" : ` (${options.detail})`;
    super(
      {
        message:
          `Authentication failed: HTTP ${options.status}${stepLabel(options.step)}${detail}. ` +
          "Check gatewayToken (sent as cf-aig-authorization) for an authenticated gateway, and " +
          "the provider key (keyLookup, the companion Worker or the gateway's BYOK keys).",
        isRetryable: false,
        ...options,
      },
      "authentication_failed",
    );
    this.name = "AuthenticationError";
  }
}

/** Options for {@link RateLimitedError}. */
export interface RateLimitedErrorOptions extends ApiCallErrorOptions {
  /** How long the server asked to wait, from `Retry-After` / `retry-after-ms`. */
  readonly retryAfterMs?: number;
}

/** The gateway or a provider rate-limited the call (429). Code `rate_limited`; retryable. */
export class RateLimitedError extends ApiCallError {
  static override readonly kind: string = "stepwise.RateLimitedError";
  /** How long the server asked to wait, when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(options: RateLimitedErrorOptions) {
    const wait =
      options.retryAfterMs === undefined ? "" : ` Retry after ${options.retryAfterMs} ms.`;
    const detail = options.detail === undefined ? "" : ` (${options.detail})`;
    super(
      {
        message:
          `Rate limited: HTTP 429${stepLabel(options.step)}${detail}.${wait} Slow down, or ` +
          "raise the gateway's rateLimit / the provider's quota.",
        ...options,
      },
      "rate_limited",
    );
    this.name = "RateLimitedError";
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Reads `retry-after-ms`, then `Retry-After` (seconds or an HTTP date), in ms. */
export function parseRetryAfter(
  headers: Headers | undefined,
  now: () => number,
): number | undefined {
  const milliseconds = headers?.get("retry-after-ms");
  if (milliseconds && /^\d+(\.\d+)?$/.test(milliseconds.trim())) return Number(milliseconds);
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}
