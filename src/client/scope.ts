/**
 * @module
 * One call's cancellation scope: the caller's `AbortSignal` and the overall deadline combined
 * into one signal, which an attempt shares unless it needs a signal of its own (an
 * `attemptTimeoutMs`, or a stream that may stop it), and the reason a signal fired (so the right
 * error is thrown). Every request and wait of the call listens to it.
 */

import type { SleepFunction } from "./types.ts";

/** Why a call or attempt was stopped. */
export type StopReason = "aborted" | "deadline" | "attempt-timeout" | "stream-idle";

/** The signal one attempt sends with; `dispose` clears its timer and listeners. */
export interface AttemptSignal {
  readonly signal: AbortSignal;
  /** Why the attempt's signal fired, or null while it has not. */
  stopReason(): StopReason | null;
  dispose(): void;
}

/** A streaming attempt's signal, which the stream can also stop. */
export interface AttemptScope extends AttemptSignal {
  /** Stops the attempt because its stream went quiet. */
  stopIdle(): void;
  /** Ends the attempt timeout (a stream's headers arrived; the idle timeout takes over). */
  clearTimeout(): void;
  /** Aborts the attempt's request because nobody will read the rest of it. */
  abandon(): void;
}

/** Options for {@link createCallScope}. */
export interface CallScopeOptions {
  readonly signal?: AbortSignal | undefined;
  readonly deadlineMs: number;
  readonly now: () => number;
}

/**
 * A call's signal (the caller's signal and the deadline combined), its deadline and its
 * attempts. The deadline timer starts when it is created.
 */
export class CallScope implements AttemptSignal {
  readonly deadlineMs: number;
  readonly #controller = new AbortController();
  readonly #callerSignal: AbortSignal | undefined;
  readonly #now: () => number;
  readonly #startedAt: number;
  readonly #deadlineTimer: ReturnType<typeof setTimeout>;
  #reason: "aborted" | "deadline" | null = null;
  #onCallerAbort: (() => void) | undefined;

  constructor({ signal, deadlineMs, now }: CallScopeOptions) {
    this.deadlineMs = deadlineMs;
    this.#callerSignal = signal;
    this.#now = now;
    this.#startedAt = now();
    if (signal?.aborted) this.stop("aborted");
    else if (signal !== undefined) {
      this.#onCallerAbort = () => this.stop("aborted");
      signal.addEventListener("abort", this.#onCallerAbort, { once: true });
    }
    this.#deadlineTimer = setTimeout(stopAtDeadline, deadlineMs, this);
  }

  /** Fires when the caller aborts or the deadline passes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Why the call's signal fired, or null while it has not. */
  stopReason(): "aborted" | "deadline" | null {
    return this.#reason;
  }

  /** Time left before the deadline, by the call's clock. */
  remainingMs(): number {
    return Math.max(0, this.deadlineMs - (this.#now() - this.#startedAt));
  }

  /**
   * The signal for an attempt that reads its whole answer: the call's own, unless an attempt
   * timeout needs a signal of its own.
   */
  attemptSignal(timeoutMs: number | undefined): AttemptSignal {
    return timeoutMs === undefined ? new SharedAttempt(this) : this.startAttempt(timeoutMs);
  }

  /** A signal of its own for one attempt; it also fires `timeoutMs` after it starts. */
  startAttempt(timeoutMs: number | undefined): AttemptScope {
    return new Attempt(this, timeoutMs);
  }

  /** Clears the deadline timer and the listener on the caller's signal. */
  dispose(): void {
    clearTimeout(this.#deadlineTimer);
    if (this.#onCallerAbort !== undefined) {
      this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
    }
  }

  /** Stops the call: the caller aborted or the deadline passed. The first reason stays. */
  stop(why: "aborted" | "deadline"): void {
    if (this.#reason !== null) return;
    this.#reason = why;
    this.#controller.abort(why);
  }
}

function stopAtDeadline(scope: CallScope): void {
  scope.stop("deadline");
}

/** The call's own signal, seen as an attempt's: disposing it leaves the call running. */
class SharedAttempt implements AttemptSignal {
  readonly #call: CallScope;

  constructor(call: CallScope) {
    this.#call = call;
  }

  get signal(): AbortSignal {
    return this.#call.signal;
  }

  stopReason(): StopReason | null {
    return this.#call.stopReason();
  }

  dispose(): void {}
}

/** Starts a call's scope; the deadline timer starts now. */
export function createCallScope(options: CallScopeOptions): CallScope {
  return new CallScope(options);
}

/** One attempt with a signal of its own, which also fires when the call's does. */
class Attempt implements AttemptScope {
  readonly #controller = new AbortController();
  readonly #call: CallScope;
  readonly #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onCallStop = () => this.#controller.abort(this.#call.signal.reason);
  #timedOut = false;
  #idle = false;

  constructor(call: CallScope, timeoutMs: number | undefined) {
    this.#call = call;
    if (call.signal.aborted) this.#onCallStop();
    else call.signal.addEventListener("abort", this.#onCallStop, { once: true });
    this.#timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            this.#timedOut = true;
            this.#controller.abort("attempt-timeout");
          }, timeoutMs);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  stopReason(): StopReason | null {
    return (
      this.#call.stopReason() ??
      (this.#timedOut ? "attempt-timeout" : this.#idle ? "stream-idle" : null)
    );
  }

  stopIdle(): void {
    this.#idle = true;
    this.#controller.abort("stream-idle");
  }

  clearTimeout(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }

  abandon(): void {
    this.#controller.abort("abandoned");
  }

  dispose(): void {
    this.clearTimeout();
    this.#call.signal.removeEventListener("abort", this.#onCallStop);
  }
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
