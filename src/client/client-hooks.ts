/**
 * @module
 * The hooks a client is given, as the client sees them: the circuit breaker and the guards that
 * order each attempt's steps (provider limits, health steering), the notes they leave on a call,
 * and where the client sends what it observed (a {@link Recorder}: call events and the breaker's
 * transitions). Types only; `types.ts` gathers them with the client's other shared types.
 */

import type { CallEvent } from "./event.ts";

/** A step of a route as the client sees it: provider, model and the timeouts it honours. */
export interface RouteStep {
  readonly provider: string;
  readonly model: string;
  /** Time to first byte before the gateway moves on (`config.requestTimeout`), in ms. */
  readonly timeoutMs?: number;
  /** Longest wait for a stream's first text, enforced by the client, in ms. */
  readonly firstTokenTimeoutMs?: number;
  /** Longest silence between a stream's events once text flows, enforced by the client, in ms. */
  readonly idleTimeoutMs?: number;
}

/**
 * The client's view of a circuit breaker; `createCircuitBreaker` from `stepwise-gateway/client/breaker`
 * makes one. A call asks it to order each attempt's steps and tells it what each step did.
 */
export interface StepBreaker {
  /**
   * The steps one attempt sends, in order. The breaker may move or drop steps whose circuit is
   * open, and claim probes for this call in `probes` (circuit key → token).
   */
  order<Step extends RouteStep>(
    steps: readonly Step[],
    probes: Map<string, number>,
  ): readonly Step[];
  /** Counts one outcome of a step: it answered (`true`) or failed (`false`). */
  record(step: RouteStep, ok: boolean, probes: Map<string, number>): void;
  /** Frees the probes a call holds but did not use. */
  release(probes: Map<string, number>): void;
  /** Calls `listener` with every change of a circuit's state (the client passes its recorder's). */
  subscribe?(listener: (transition: BreakerTransition) => void): unknown;
}

/** A step a guard left out of an attempt (`skipped`) or moved behind others (`demoted`), and why. */
export interface SteeredStep {
  /** 0-based index of the step in the route. */
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly action: "skipped" | "demoted";
  /** e.g. `requests_at_cap`, `rpm_cap`, `retry_after`, `down`, `degraded`, `probation`. */
  readonly reason: string;
}

/** Where a guard notes the steps it skipped or demoted (the call; its event lists them). */
export interface SteeringNotes {
  /** The call's mode: guards leave a `dynamic` call's steps alone (the gateway runs its chain). */
  readonly mode: string;
  steered?: SteeredStep[];
}

/**
 * Orders the steps of each universal attempt before it is sent, after the breaker (health, then
 * limits):
 * `createProviderLimits` (`stepwise-gateway/client/limits`) skips steps at their quota,
 * `createHealthSteering` (`stepwise-gateway/client/health`) demotes unhealthy ones.
 */
export interface StepGuard {
  /**
   * The steps to send, in order; each step left out or moved back is added to `notes.steered`. May
   * throw a `GatewayError` when no step can be sent (the call ends with it, without a request).
   */
  order<Step extends RouteStep & { readonly index: number }>(
    steps: readonly Step[],
    notes: SteeringNotes,
  ): readonly Step[];
}

/**
 * The client's provider limits (`createProviderLimits()` from `stepwise-gateway/client/limits`): a
 * {@link StepGuard} told of every answer whose step the client knows.
 */
export interface StepLimits extends StepGuard {
  /**
   * Reads what `response` (an answer or error answer of `step`, headers arrived, body unread)
   * says of the provider's quota; `step` is undefined when the answer named no step of the
   * route. It must not read `response`'s body (it may read a clone).
   */
  observe(step: RouteStep | undefined, response: Response): void;
}

/** A circuit's state. */
export type BreakerState = "closed" | "open" | "half-open";

/** Why a circuit changed state. */
export type BreakerReason =
  | "consecutive_failures"
  | "failure_rate"
  | "cooldown_elapsed"
  | "probe_succeeded"
  | "probe_failed";

/** One change of a circuit's state, as given to subscribers (and `recorder.breaker`). */
export interface BreakerTransition {
  /** ISO-8601 time of the change. */
  readonly time: string;
  readonly provider: string;
  readonly model: string;
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly reason: BreakerReason;
  readonly consecutiveFailures: number;
  /** Failure rate over the window when the change happened; null with too few outcomes. */
  readonly failureRate: number | null;
  /** The cooldown of the circuit after the change, in ms. */
  readonly cooldownMs: number;
}

/**
 * Where the client sends what it observed. A recorder that throws (or rejects) never breaks the
 * call: the client catches it and tells `onRecorderError`.
 * @example
 * const recorder: Recorder = { record: (event) => queue.push(event) };
 */
export interface Recorder {
  /** Called once per call, after it finished (or failed). */
  record(event: CallEvent): void | Promise<void>;
  /** Called when a circuit of the client's breaker changes state. */
  breaker?(transition: BreakerTransition): void | Promise<void>;
}
