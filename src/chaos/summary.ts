/**
 * @module
 * The campaign's figures from what it collected: calls by outcome, availability measured (all,
 * plain, streamed), each step's fault rates as planned and as injected, and the theoretical and
 * expected availability built from the injected rates.
 */
import type { CallEvent } from "../client/index.ts";
import type { StepConfig } from "../config/index.ts";
import type { AttemptTally, InjectedRates } from "./attempt-tally.ts";
import { type ProviderPlan, plannedEffects } from "./campaign-fault-plan.ts";
import { chainAvailability, expectedAvailability, theoreticalAvailability } from "./theory.ts";

/** The part of an event the campaign keeps. */
export type EventSummary = Pick<
  CallEvent,
  "id" | "ok" | "status" | "step" | "streamed" | "latencyMs" | "errorCode"
>;

/**
 * Answered: a success, or a definitive refusal (4xx other than 408 and 429) that says the request,
 * not the service, was at fault. A stream that broke after its 200 is not answered.
 */
export function isAnswered(event: Pick<CallEvent, "ok" | "status">): boolean {
  if (event.ok) return true;
  return event.status >= 400 && event.status < 500 && event.status !== 408 && event.status !== 429;
}

/** One route step's fault rates. */
export interface StepFigures {
  readonly index: number;
  readonly provider: string;
  readonly model: string;
  /** The plan's total fault rate per attempt. */
  readonly plannedRate: number;
  readonly attempts: number;
  readonly streamAttempts: number;
  readonly injected: InjectedRates;
  /** True when too few attempts reached the provider and the plan's rates stand in for the measure. */
  readonly usedPlan: boolean;
}

export interface CallFigures {
  readonly total: number;
  readonly plain: number;
  readonly stream: number;
  readonly ok: number;
  /** Answered with a definitive 4xx. */
  readonly refused: number;
  readonly failed: number;
  readonly failedPlain: number;
  readonly failedStream: number;
  /** Calls per serving step index; `none` for calls no step served. */
  readonly byStep: Readonly<Record<string, number>>;
  /** Failed and refused calls per error code (`incomplete_stream`, `deadline_exceeded`, …). */
  readonly errorCodes: Readonly<Record<string, number>>;
}

export interface AvailabilityFigures {
  readonly measured: number;
  readonly measuredPlain: number | null;
  readonly measuredStream: number | null;
  /** 1 − Π pᵢ over the injected per-attempt failure rates. */
  readonly theoretical: number;
  /** Streamed calls under the model that also counts breaks after the first byte. */
  readonly theoreticalStream: number;
  /** Plain and streamed calls blended by their counts: what the check compares against. */
  readonly expected: number;
}

/** Below this many attempts a provider's measured rates are too noisy; the plan's are used. */
export const minimumAttemptsForMeasure = 30;

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

/** Each step's planned and injected rates. */
export function stepFigures(
  steps: readonly StepConfig[],
  plans: readonly ProviderPlan[],
  tally: AttemptTally,
): StepFigures[] {
  return steps.map((step, index) => {
    const plan = plans.find((candidate) => candidate.provider === step.provider);
    const counts = tally.provider(step.provider);
    const attempts = counts.attempts.plain + counts.attempts.stream;
    const measured = tally.rates(step.provider);
    const enough =
      counts.attempts.plain >= minimumAttemptsForMeasure &&
      counts.attempts.stream >= minimumAttemptsForMeasure;
    let injected = measured;
    if (!enough && plan !== undefined) {
      const plain = plannedEffects(plan, false);
      const stream = plannedEffects(plan, true);
      injected = {
        plainFails: plain.fails,
        streamFails: stream.fails,
        streamBreaks: stream.breaks,
        fails: plain.fails,
        faulted: plan.rate,
      };
    }
    return {
      index,
      provider: step.provider,
      model: step.model,
      plannedRate: plan?.rate ?? 0,
      attempts,
      streamAttempts: counts.attempts.stream,
      injected,
      usedPlan: !enough && plan !== undefined,
    };
  });
}

/** Calls by outcome, from one event per call. */
export function callFigures(events: readonly EventSummary[]): CallFigures {
  const byStep: Record<string, number> = {};
  const errorCodes: Record<string, number> = {};
  let ok = 0;
  let refused = 0;
  let failedPlain = 0;
  let failedStream = 0;
  let stream = 0;
  for (const event of events) {
    if (event.streamed) stream += 1;
    const key = event.step === null ? "none" : String(event.step);
    byStep[key] = (byStep[key] ?? 0) + 1;
    if (!event.ok) {
      const code = event.errorCode ?? "unknown";
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
    }
    if (event.ok) ok += 1;
    else if (isAnswered(event)) refused += 1;
    else if (event.streamed) failedStream += 1;
    else failedPlain += 1;
  }
  return {
    total: events.length,
    plain: events.length - stream,
    stream,
    ok,
    refused,
    failed: failedPlain + failedStream,
    failedPlain,
    failedStream,
    byStep,
    errorCodes,
  };
}

/** Measured, theoretical and expected availability. */
export function availabilityFigures(
  calls: CallFigures,
  steps: readonly StepFigures[],
): AvailabilityFigures {
  const plainSteps = steps.map((step) => ({ fails: step.injected.plainFails, breaks: 0 }));
  const streamSteps = steps.map((step) => ({
    fails: step.injected.streamFails,
    breaks: step.injected.streamBreaks,
  }));
  return {
    measured: calls.total === 0 ? 1 : (calls.ok + calls.refused) / calls.total,
    measuredPlain: ratio(calls.plain - calls.failedPlain, calls.plain),
    measuredStream: ratio(calls.stream - calls.failedStream, calls.stream),
    theoretical: theoreticalAvailability(steps.map((step) => step.injected.fails)),
    theoreticalStream: chainAvailability(streamSteps),
    expected: expectedAvailability({
      plainCalls: calls.plain,
      streamCalls: calls.stream,
      plainSteps,
      streamSteps,
    }),
  };
}
