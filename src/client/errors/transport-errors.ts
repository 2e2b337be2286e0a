/**
 * @module
 * Errors about getting an answer at all: the network failed ({@link NetworkError}), one attempt
 * was too slow ({@link TimeoutError}), the call's overall deadline passed
 * ({@link DeadlineExceededError}), or the caller aborted ({@link AbortedError}).
 */

import { describeCause, GatewayError, type StepReference, withStep } from "./gateway-error.ts";

/** `fetch` itself failed: DNS, a refused or reset connection. Code `network_error`; retryable. */
export class NetworkError extends GatewayError {
  static override readonly kind: string = "stepwise.NetworkError";
  readonly url: string;

  constructor({ url, cause }: { readonly url: string; readonly cause?: unknown }) {
    super({
      code: "network_error",
      message:
        `Could not reach the gateway at ${url}: ${describeCause(cause)}. Check baseUrl and the ` +
        "network, and that the gateway (or the emulator, or the companion Worker) is running.",
      isRetryable: true,
      cause,
    });
    this.name = "NetworkError";
    this.url = url;
  }
}

/** Options for {@link TimeoutError}. */
export interface TimeoutErrorOptions {
  readonly timeoutMs: number;
  readonly url: string;
  readonly step?: StepReference;
  /** What timed out; `attempt` unless a stream went quiet. */
  readonly phase?: "attempt" | "stream-idle";
}

/**
 * One attempt got no answer within `attemptTimeoutMs`, or a stream sent nothing for
 * `streamIdleTimeoutMs`. Code `timeout`; retryable.
 */
export class TimeoutError extends GatewayError {
  static override readonly kind: string = "stepwise.TimeoutError";
  readonly timeoutMs: number;
  readonly url: string;
  readonly phase: "attempt" | "stream-idle";

  constructor({ timeoutMs, url, step, phase = "attempt" }: TimeoutErrorOptions) {
    const what =
      phase === "attempt"
        ? `The gateway did not answer within ${timeoutMs} ms (${url}). Raise attemptTimeoutMs, or lower the route's step timeouts so the gateway falls back sooner.`
        : `The stream sent nothing for ${timeoutMs} ms (${url}). Raise streamIdleTimeoutMs if the model thinks for long before answering.`;
    super({ code: "timeout", message: what, isRetryable: true, ...withStep(step) });
    this.name = "TimeoutError";
    this.timeoutMs = timeoutMs;
    this.url = url;
    this.phase = phase;
  }
}

/** Options for {@link DeadlineExceededError}. */
export interface DeadlineExceededErrorOptions {
  readonly deadlineMs: number;
  /** Attempts started before the deadline passed. */
  readonly attempts: number;
  /** The last attempt's error, when one had failed before the deadline. */
  readonly cause?: unknown;
}

/**
 * The call's overall deadline passed: attempts, waits between them and streaming included. Code
 * `deadline_exceeded`; retryable, since a new call gets a fresh deadline.
 */
export class DeadlineExceededError extends GatewayError {
  static override readonly kind: string = "stepwise.DeadlineExceededError";
  readonly deadlineMs: number;
  readonly attempts: number;

  constructor({ deadlineMs, attempts, cause }: DeadlineExceededErrorOptions) {
    super({
      code: "deadline_exceeded",
      message:
        `The call did not finish within its ${deadlineMs} ms deadline (${attempts} attempt(s)). ` +
        "Raise deadlineMs (per call, on the route or on the client), or shorten step timeouts.",
      isRetryable: true,
      cause,
    });
    this.name = "DeadlineExceededError";
    this.deadlineMs = deadlineMs;
    this.attempts = attempts;
  }
}

/** The caller's `AbortSignal` fired; every wait and request stopped. Code `aborted`. */
export class AbortedError extends GatewayError {
  static override readonly kind: string = "stepwise.AbortedError";

  constructor({ cause }: { readonly cause?: unknown } = {}) {
    super({
      code: "aborted",
      message: "The call was aborted by its AbortSignal.",
      isRetryable: false,
      cause,
    });
    this.name = "AbortedError";
  }
}
