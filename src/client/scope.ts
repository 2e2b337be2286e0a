/**
 * @module
 * One call's cancellation scope: the caller's `AbortSignal` and the overall deadline combined
 * into one signal, per-attempt signals that also stop after `attemptTimeoutMs`, and the reason a
 * signal fired (so the right error is thrown). Every request and wait of the call listens to it.
 */

import type { SleepFunction } from "./types.ts";

/** Why a call or attempt was stopped. */
export type StopReason = "aborted" | "deadline" | "attempt-timeout" | "stream-idle";

/** One attempt's signal; `dispose` clears its timer and listeners. */
export interface AttemptScope {
  readonly signal: AbortSignal;
  /** Why the attempt's signal fired, or null while it has not. */
  stopReason(): StopReason | null;
  /** Stops the attempt because its stream went quiet. */
  stopIdle(): void;
  /** Ends the attempt timeout (a stream's headers arrived; the idle timeout takes over). */
  clearTimeout(): void;
  /** Aborts the attempt's request because nobody will read the rest of it. */
  abandon(): void;
  dispose(): void;
}

/** A call's signal, deadline and attempts. */
export interface CallScope {
  readonly signal: AbortSignal;
  readonly deadlineMs: number;
  /** Why the call's signal fired, or null while it has not. */
  stopReason(): "aborted" | "deadline" | null;
  /** Time left before the deadline, by the call's clock. */
  remainingMs(): number;
  /** A signal for one attempt; it also fires `timeoutMs` after it starts. */
  startAttempt(timeoutMs: number | undefined): AttemptScope;
  dispose(): void;
}

/** Options for {@link createCallScope}. */
export interface CallScopeOptions {
  readonly signal?: AbortSignal | undefined;
  readonly deadlineMs: number;
  readonly now: () => number;
}

/** Starts a call's scope; the deadline timer starts now. */
export function createCallScope({ signal, deadlineMs, now }: CallScopeOptions): CallScope {
  const controller = new AbortController();
  const startedAt = now();
  let reason: "aborted" | "deadline" | null = null;
  const stop = (why: "aborted" | "deadline") => {
    if (reason !== null) return;
    reason = why;
    controller.abort(why);
  };
  const onCallerAbort = () => stop("aborted");
  if (signal?.aborted) stop("aborted");
  else signal?.addEventListener("abort", onCallerAbort, { once: true });
  const deadlineTimer = setTimeout(() => stop("deadline"), deadlineMs);

  return {
    signal: controller.signal,
    deadlineMs,
    stopReason: () => reason,
    remainingMs: () => Math.max(0, deadlineMs - (now() - startedAt)),
    startAttempt(timeoutMs) {
      return startAttempt(controller.signal, () => reason, timeoutMs);
    },
    dispose() {
      clearTimeout(deadlineTimer);
      signal?.removeEventListener("abort", onCallerAbort);
    },
  };
}

function startAttempt(
  callSignal: AbortSignal,
  callReason: () => "aborted" | "deadline" | null,
  timeoutMs: number | undefined,
): AttemptScope {
  const controller = new AbortController();
  let timedOut = false;
  let idle = false;
  const onCallStop = () => controller.abort(callSignal.reason);
  if (callSignal.aborted) onCallStop();
  else callSignal.addEventListener("abort", onCallStop, { once: true });
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort("attempt-timeout");
        }, timeoutMs);
  return {
    signal: controller.signal,
    stopReason: () => callReason() ?? (timedOut ? "attempt-timeout" : idle ? "stream-idle" : null),
    stopIdle() {
      idle = true;
      controller.abort("stream-idle");
    },
    clearTimeout() {
      if (timer !== undefined) clearTimeout(timer);
    },
    abandon() {
      controller.abort("abandoned");
    },
    dispose() {
      if (timer !== undefined) clearTimeout(timer);
      callSignal.removeEventListener("abort", onCallStop);
    },
  };
}

/**
 * Waits with `setTimeout`; the signal cancels the wait (and rejects with its reason).
 * @example await defaultSleep(250, signal);
 */
export const defaultSleep: SleepFunction = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** Waits until the signal fires (for reads that must stop when the call does). */
export function whenAborted(signal: AbortSignal): { promise: Promise<never>; dispose(): void } {
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  promise.catch(() => undefined);
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) };
}
