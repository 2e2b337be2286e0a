/**
 * @module
 * The attempt loop every call shares. Each attempt orders the remaining steps by the breaker,
 * sends them, and then:
 * - an accepted answer ends the call;
 * - a rejected or unreadable answer moves on to the steps after the one that served, at once
 *   (another provider, so no wait);
 * - a retryable failure (network, timeout, 429, 5xx, every step failing) waits with backoff
 *   (at least `Retry-After`) and tries the same steps again, re-ordered by the breaker;
 * - anything else, or running out of attempts, steps or deadline, ends the call with an error.
 * Attempts are bounded by `maxAttempts`, waits by the deadline, and the caller's signal stops
 * everything, so there is no hot loop.
 */

import type { AttemptPlan, ServedPosition } from "./attempt.ts";
import type { PreparedCall } from "./call-setup.ts";
import type { CallTracker } from "./call-tracker.ts";
import {
  type ChainEntry,
  observeChain,
  orderChain,
  routeEntries,
  type StepOutcome,
} from "./chain.ts";
import { type ClientContext, clientDefaults } from "./context.ts";
import { type GatewayError, RateLimitedError } from "./errors.ts";
import { transportError } from "./failure.ts";

/** What one attempt produced. */
export type AttemptOutcome<Answer> =
  | {
      readonly kind: "answer";
      readonly answer: Answer;
      readonly served: ServedPosition | null;
      readonly order: readonly ChainEntry[];
      /** Answers from the gateway's cache say nothing about the provider's health. */
      readonly cached: boolean;
      /** True when the caller tells the breaker itself (a stream, once it has ended). */
      readonly observedLater?: boolean;
    }
  | {
      readonly kind: "failure";
      readonly error: GatewayError;
      /** Try the same steps again, the steps after the failing one, or give up. */
      readonly next: "retry" | "after-served" | "stop";
      /** Position of the failing step in `order`; null when no step is to blame. */
      readonly position: number | null;
      readonly order: readonly ChainEntry[];
      /** HTTP status of the failing step's answer; null without one. */
      readonly status: number | null;
      /** What the failure says about the failing step's provider. */
      readonly stepOutcome: StepOutcome;
      /** True when the gateway had no step left to try. */
      readonly exhausted: boolean;
    };

/** The caller's verdict on an answer. */
export type Verdict =
  | { readonly accepted: true }
  | { readonly accepted: false; readonly reason: string };

/** How a call makes one attempt and judges its answer. */
export interface AttemptHooks<Answer> {
  attempt(plan: AttemptPlan): Promise<AttemptOutcome<Answer>>;
  judge?(answer: Answer, served: ServedPosition | null): Promise<Verdict>;
}

/**
 * Runs attempts until one is accepted.
 * @throws the error that ended the call (see the module description).
 */
export async function runAttempts<Answer>(
  context: ClientContext,
  call: PreparedCall,
  tracker: CallTracker,
  hooks: AttemptHooks<Answer>,
): Promise<Answer> {
  let candidates = routeEntries(call.route.steps);
  let dynamic = call.mode === "dynamic";
  let waits = 0;
  for (;;) {
    const plan: AttemptPlan = dynamic
      ? { kind: "dynamic", routeName: tracker.route, route: call.route }
      : {
          kind: "universal",
          entries: orderChain(candidates, context.breaker, call.probes).entries,
        };
    tracker.attempts++;
    const outcome = await hooks.attempt(plan);
    observe(context, call, tracker, outcome);
    const failure =
      outcome.kind === "failure"
        ? outcome
        : hooks.judge === undefined
          ? undefined
          : await rejection(tracker, hooks.judge, outcome);
    if (failure === undefined) return (outcome as { answer: Answer }).answer;
    const { error, next, position, exhausted } = failure;

    if (next === "stop") throw error;
    if (next === "after-served") {
      if (position === null) throw error;
      candidates = outcome.order.slice(position + 1);
      dynamic = false;
      if (candidates.length === 0) throw tracker.exhaustedError();
      if (tracker.attempts >= call.maxAttempts) throw error;
      continue;
    }
    const finalError = exhausted ? tracker.exhaustedError() : error;
    if (!error.isRetryable || tracker.attempts >= call.maxAttempts) throw finalError;
    const delay = backoffMs(context, waits++, error);
    if (delay >= call.scope.remainingMs()) throw finalError;
    await sleepOrStop(context, call, tracker, delay);
  }
}

/** Why an attempt did not end the call, and what to do next. */
interface Failure {
  readonly error: GatewayError;
  readonly next: "retry" | "after-served" | "stop";
  readonly position: number | null;
  readonly exhausted: boolean;
}

/** Feeds the breaker and the tracker with what an attempt showed. */
function observe<Answer>(
  context: ClientContext,
  call: PreparedCall,
  tracker: CallTracker,
  outcome: AttemptOutcome<Answer>,
): void {
  if (outcome.kind === "answer") {
    const position = outcome.served?.position ?? null;
    if (position === null) return;
    notePassedOver(tracker, outcome.order, position);
    if (!outcome.cached && outcome.observedLater !== true) {
      observeChain(context.breaker, outcome.order, position, "answered", call.probes);
    }
    return;
  }
  const { position, order } = outcome;
  if (position === null) return;
  notePassedOver(tracker, order, position);
  tracker.noteFailure(order[position]!, outcome.status, outcome.error);
  observeChain(context.breaker, order, position, outcome.stepOutcome, call.probes);
}

/** Asks the caller about an answer: undefined when accepted, else the failure it counts as. */
async function rejection<Answer>(
  tracker: CallTracker,
  judge: NonNullable<AttemptHooks<Answer>["judge"]>,
  outcome: Extract<AttemptOutcome<Answer>, { kind: "answer" }>,
): Promise<Failure | undefined> {
  const verdict = await judge(outcome.answer, outcome.served);
  if (verdict.accepted) return undefined;
  const error = tracker.noteRejection(outcome.served?.entry ?? null, verdict.reason);
  return {
    error,
    next: "after-served",
    position: outcome.served?.position ?? null,
    exhausted: false,
  };
}

/** Steps the gateway tried before `position` failed, though it reported no detail. */
function notePassedOver(
  tracker: CallTracker,
  order: readonly ChainEntry[],
  position: number,
): void {
  for (const entry of order.slice(0, position)) tracker.noteFailure(entry, null, null);
}

/** The wait before retry number `waits` (0-based): doubling from `retryDelayMs`, capped, at least `Retry-After`. */
export function backoffMs(context: ClientContext, waits: number, error: GatewayError): number {
  const base = context.options.retryDelayMs ?? clientDefaults.retryDelayMs;
  const cap = context.options.maxRetryDelayMs ?? clientDefaults.maxRetryDelayMs;
  const delay = Math.min(cap, base * 2 ** waits);
  const retryAfter = RateLimitedError.isInstance(error) ? (error.retryAfterMs ?? 0) : 0;
  return Math.max(delay, retryAfter);
}

async function sleepOrStop(
  context: ClientContext,
  call: PreparedCall,
  tracker: CallTracker,
  delay: number,
): Promise<void> {
  try {
    await context.sleep(delay, call.scope.signal);
  } catch (cause) {
    const reason = call.scope.stopReason();
    if (reason === null) throw cause;
    throw transportError({
      cause,
      reason,
      url: context.gatewayUrl,
      attemptTimeoutMs: undefined,
      deadlineMs: call.scope.deadlineMs,
      attempts: tracker.attempts,
    });
  }
  if (call.scope.stopReason() !== null) {
    throw transportError({
      cause: undefined,
      reason: call.scope.stopReason(),
      url: context.gatewayUrl,
      attemptTimeoutMs: undefined,
      deadlineMs: call.scope.deadlineMs,
      attempts: tracker.attempts,
    });
  }
}
