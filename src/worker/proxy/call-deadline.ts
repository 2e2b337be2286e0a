/**
 * @module
 * The time a proxied call may take. An app bounds a call with `cf-aig-request-timeout` (ms;
 * Cloudflare: how long the gateway waits for the first byte of an answer, aig-spec §3). For a
 * call to one provider (compat `{provider}/{model}`, provider-native), where the Worker itself
 * sends the request again with the next key of a pool, the Worker counts it from the moment it
 * received the call and holds the whole call to it, every key included:
 *
 * - each attempt goes upstream with what remains as its own `cf-aig-request-timeout`, never the
 *   app's full value again;
 * - no attempt starts once the time is spent: the answer in hand (the last key's 429, 401 or 403)
 *   is passed on instead;
 * - the Worker stops waiting for an attempt's answer when the time runs out, aborts it, and
 *   answers 504 `request_timeout` (a {@link WorkerError}, like its other failures).
 *
 * Once an answer's headers have come, its body is not bounded (as at the gateway: once bytes
 * flow, no timeout applies). A `Retry-After` never makes the Worker wait: the next key is sent at
 * once, or the answer goes back to the app with its `Retry-After`.
 *
 * Universal and `dynamic/<route>` calls keep Cloudflare's meaning, a time per step (or model), so
 * the gateway can still fall back: the header goes to the gateway as the app sent it, and the
 * gateway, not the Worker, moves from one key's copy of a step to the next.
 */
import { WorkerError } from "../errors.ts";

/** The header an app bounds a call with, and each attempt carries the remaining time in. */
export const requestTimeoutHeader = "cf-aig-request-timeout";

/** Largest `cf-aig-request-timeout` accepted (the emulator's bound too): one hour. */
export const maxRequestTimeoutMs = 3_600_000;

/** A call's time limit on the Worker's clock. */
export interface CallDeadline {
  /** What the app asked for, in ms. */
  readonly timeoutMs: number;
  /** Epoch ms (the Worker's clock) by which the answer must have begun. */
  readonly at: number;
}

/**
 * The deadline an app's headers set, counted from `now`; null when it sent none.
 * @throws {WorkerError} 400 `invalid_request_timeout` when the header is not a whole number of
 * milliseconds from 1 to {@link maxRequestTimeoutMs}.
 */
export function readDeadline(headers: Headers, now: number): CallDeadline | null {
  const raw = headers.get(requestTimeoutHeader);
  if (raw === null) return null;
  const timeoutMs = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > maxRequestTimeoutMs) {
    throw new WorkerError({
      status: 400,
      code: "invalid_request_timeout",
      message: `${requestTimeoutHeader} must be a whole number of milliseconds from 1 to ${maxRequestTimeoutMs}; send e.g. ${requestTimeoutHeader}: 30000, or leave it out.`,
    });
  }
  return { timeoutMs, at: now + timeoutMs };
}

/** Milliseconds left before the deadline (0 once it has passed). */
export function remainingMs(deadline: CallDeadline, now: number): number {
  return Math.max(0, deadline.at - now);
}

/** The answer when the call's time ran out before any answer began. */
export function requestTimedOut(deadline: CallDeadline, attempts: number): WorkerError {
  return new WorkerError({
    status: 504,
    code: "request_timeout",
    message: `No answer began within the call's ${requestTimeoutHeader} of ${deadline.timeoutMs} ms (${attempts} attempt(s) sent); raise ${requestTimeoutHeader} or try again.`,
  });
}
