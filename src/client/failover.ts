/**
 * @module
 * What a call does after an attempt failed: the error it is, what that error means for the route
 * (the refusal table, `refusals.ts`), and what comes next: the steps after the failing one
 * at once, the route again after a backoff, or the end of the call with its error. Each step's
 * failure is noted for the call's event and told to the circuit breaker ({@link observe}),
 * including the steps the gateway passed over before the one that answered ({@link passedOver}).
 * A healthy call never comes here.
 */

import {
  ApiCallError,
  InvalidResponseError,
  NetworkError,
  RateLimitedError,
  stepLabel,
  TimeoutError,
} from "./answer-errors.ts";
import { type GatewayError, stepReference } from "./call-errors.ts";
import type { CallState, Failure, RouteEntry, Trial } from "./call-state.ts";
import { conductFor, gatewayEnvelope } from "./refusals.ts";
import { AllStepsFailedError, OutputRejectedError } from "./route-errors.ts";

/** Default waits between tries of the route, in ms: doubling from the first, up to the longest. */
export const retryDefaults = { retryDelayMs: 250, maxRetryDelayMs: 5_000 } as const;

/**
 * Notes a step's failure for the event, and tells the breaker what the step did when that says
 * something about its health (never for a cached answer, nor once the call is over).
 */
export function observe(
  call: CallState,
  entry: RouteEntry,
  ok: boolean,
  failure?: Omit<Trial, "entry">,
  health = true,
): void {
  if (failure !== undefined) call.trials.push({ entry, ...failure });
  if (health && call.cacheStatus !== "HIT" && !call.ended) {
    call.client.breaker?.record(entry, ok, call.probes!);
  }
}

/** Notes that the steps before `position` failed: the gateway moved on from each. */
export function passedOver(call: CallState, order: readonly RouteEntry[], position: number): void {
  for (let index = 0; index < position; index++) {
    observe(call, order[index]!, false, { status: null, error: null, at: "request" });
  }
}

/** Keeps `entry` out of the rest of the call. */
function exclude(call: CallState, entry: RouteEntry): void {
  call.excluded ??= new Set();
  call.excluded.add(entry.index);
}

/**
 * The error and the conduct of a failure: `same` tries the failing step again (a refused
 * prefill); `blamed` is the step to blame when not the failure's own (null: none, as for a
 * gateway error).
 */
interface Verdict {
  readonly error: GatewayError;
  readonly next: "stop" | "after" | "same";
  readonly blamed?: RouteEntry | null;
}

function verdictOf(call: CallState, failure: Failure, order: readonly RouteEntry[]): Verdict {
  const { entry, url, status } = failure;
  const step = entry && stepReference(entry);
  const fail = (error: GatewayError, at: Trial["at"], health = true) => {
    if (entry !== undefined) observe(call, entry, false, { status, error, at }, health);
  };
  switch (failure.kind) {
    case "transport": {
      // A stream with no headers by its first-token timeout: its first step failed.
      if (failure.firstTokenMs !== undefined) {
        const error = new TimeoutError({
          timeoutMs: failure.firstTokenMs,
          url,
          step,
          phase: "first-token",
        });
        fail(error, "request");
        return { error, next: "after" };
      }
      const timeoutMs = call.client.attemptTimeoutMs;
      return {
        error:
          timeoutMs !== undefined && call.attemptTimeout?.signal.aborted
            ? new TimeoutError({ timeoutMs, url })
            : new NetworkError({ url, cause: failure.cause }),
        next: "after",
      };
    }
    case "unknown-step":
      return {
        error: new InvalidResponseError({
          message:
            `The gateway's answer names a step that was not sent (${Object.entries(failure.named).map(([name, value]) => `cf-aig-${name}: ${value}`)}; ` +
            `${failure.sent} sent). Check that baseUrl points at AI Gateway, the emulator or the companion Worker.`,
          url,
          status,
        }),
        next: "stop",
      };
    case "unreadable": {
      const error = new InvalidResponseError({
        message: `The answer${stepLabel(step)} could not be read: ${failure.detail}`,
        url,
        status,
        step,
        cause: failure.cause,
      });
      fail(error, "answer");
      return { error, next: "after" };
    }
    case "broken":
      fail(failure.error, failure.midStream ? "mid-stream" : "stream");
      return afterBreak(call, failure, failure.error);
    case "rejected": {
      call.rejections.push({
        index: null,
        provider: null,
        model: null,
        ...step,
        reason: failure.detail,
      });
      const error = new OutputRejectedError({ rejections: [...call.rejections] });
      if (entry !== undefined) exclude(call, entry);
      fail(error, "answer", false);
      return afterBreak(call, failure, error);
    }
  }
  // A non-2xx answer: the gateway's own error (no step to blame), or a step's.
  const { response, text } = failure;
  const base = { status, url, headers: response.headers, responseBody: text, now: call.client.now };
  const envelope = gatewayEnvelope(text);
  if (entry === undefined || envelope !== undefined) {
    const error = ApiCallError.fromResponse(
      envelope
        ? {
            ...base,
            detail: `${envelope.message} (gateway error ${envelope.code})`,
            errorType: envelope.code,
          }
        : base,
    );
    return { error, next: error.isRetryable ? "after" : "stop", blamed: null };
  }
  passedOver(call, order, order.indexOf(entry));
  const info = call.adapters.get(entry.provider)!.parseError(status, text);
  const error = ApiCallError.fromResponse({
    ...base,
    detail: info.message,
    errorType: info.type,
    step,
  });
  const conduct = conductFor(status, info.type, info.message);
  if (RateLimitedError.isInstance(error) && error.retryAfterMs !== undefined) {
    // The step is not sent again in this call before its Retry-After (see `recover`).
    call.retryAfter ??= new Map();
    call.retryAfter.set(entry.index, call.now() + error.retryAfterMs);
  }
  if (conduct === "stop" && call.streamer?.prefilled(entry)) {
    // The step refused the prefill: try it again without one; the caller never sees this.
    call.streamer.refusePrefill(entry);
    fail(error, "request", false);
    return { error, next: "same" };
  }
  if (conduct === "next") exclude(call, entry);
  // Refusals of this request say nothing about the model's health; errors and overload do.
  fail(
    error,
    "request",
    conduct === "retry" || /overload|^529/i.test(`${status} ${info.type} ${info.message}`),
  );
  return { error, next: conduct === "stop" ? "stop" : "after" };
}

/** After a step's answer failed: the steps after it, unless the caller saw text and the policy is `fail`. */
function afterBreak(
  call: CallState,
  failure: Failure & { midStream: boolean },
  error: GatewayError,
): Verdict {
  const { entry } = failure;
  if (entry === undefined) return { error, next: failure.kind === "broken" ? "stop" : "after" };
  if (failure.midStream) {
    if (call.policy === "fail") return { error, next: "stop" };
    call.streamer?.broke(entry.index, error.code);
  }
  return { error, next: "after" };
}

/** The error for a call whose steps are used up: every rejection, or every step's failure. */
function exhausted(call: CallState, error: GatewayError): GatewayError {
  const { trials, rejections } = call;
  if (
    rejections.length > 0 &&
    trials.every((trial) => OutputRejectedError.isInstance(trial.error))
  ) {
    return new OutputRejectedError({ rejections });
  }
  // One line per step, in the order of its last failure; a failure with detail beats one without.
  const steps = new Map<number, Trial>();
  for (const trial of trials) {
    const previous = steps.get(trial.entry.index);
    steps.delete(trial.entry.index);
    steps.set(trial.entry.index, trial.error === null && previous?.error ? previous : trial);
  }
  return steps.size === 0
    ? error
    : new AllStepsFailedError({
        route: call.route.name,
        steps: [...steps.values()].map(({ entry, status, error: cause }) => ({
          ...stepReference(entry),
          status,
          error: cause,
        })),
      });
}

/**
 * After a failed attempt: the steps for the next one and whether they are the steps after the
 * failing one (`after`), or, when the call is over, a throw of its error. Waits (with backoff, at
 * least `Retry-After`) before trying the route again.
 * @throws the error that ends the call.
 */
export async function recover(
  call: CallState,
  failure: Failure,
  order: readonly RouteEntry[],
): Promise<{ readonly steps: readonly RouteEntry[]; readonly after: boolean }> {
  const { error, next, blamed = failure.entry } = verdictOf(call, failure, order);
  if (next === "stop") throw error;
  const { client, excluded, maxAttempts } = call;
  const usable = (entries: readonly RouteEntry[]) =>
    entries.filter((entry) => !excluded?.has(entry.index));
  const position = blamed ? order.indexOf(blamed) : -1;
  let final = error;
  if (position >= 0) {
    const rest = usable(order.slice(next === "same" ? position : position + 1));
    if (rest.length > 0 && (next === "same" || call.attempts < maxAttempts))
      return { steps: rest, after: true };
    // Nothing after the failing step: every step of this attempt is used up.
    if (rest.length === 0) final = exhausted(call, error);
  }
  const {
    retryDelayMs = retryDefaults.retryDelayMs,
    maxRetryDelayMs = retryDefaults.maxRetryDelayMs,
  } = client;
  const now = call.now();
  const left = call.deadlineMs - (now - call.startedAt);
  let delay = Math.max(
    Math.min(maxRetryDelayMs, retryDelayMs * 2 ** call.waits++),
    // The gateway's own 429 (no step to blame) holds for the whole route.
    RateLimitedError.isInstance(error) && blamed === null ? (error.retryAfterMs ?? 0) : 0,
  );
  // A step that asked to be left alone (429 with Retry-After) is waited for when the deadline
  // allows, and left out of the rest of the call when it does not.
  const steps = usable(call.route.steps).filter((entry) => {
    const wait = (call.retryAfter?.get(entry.index) ?? now) - now;
    if (wait >= left) return false;
    delay = Math.max(delay, wait);
    return true;
  });
  if (!steps.length || !error.isRetryable || call.attempts >= maxAttempts || delay >= left) {
    throw final;
  }
  const { sleep } = client;
  await (sleep
    ? sleep(delay, call.options.signal)
    : new Promise<void>((resolve) => {
        call.timer = setTimeout(resolve, delay);
      }));
  if (call.halted !== undefined) throw call.halted;
  return { steps, after: false };
}
