/**
 * @module
 * What one call learned while it ran (attempts, the last answer's headers, each step's failure,
 * the validator's rejections) and the single `CallEvent` it records at the end, success or
 * failure. The event is built from these fields only, never from headers, so no key or token
 * can reach it.
 */

import { computeCost } from "../providers/index.ts";
import type { TokenUsage } from "../providers/types.ts";
import type { PolicyDecision } from "../routes/policy.ts";
import { chargeBudget } from "../routes/policy-call.ts";
import type { SentAttempt } from "./attempt.ts";
import { type ChainEntry, referenceOf } from "./chain.ts";
import type { ClientContext } from "./context.ts";
import {
  AllStepsFailedError,
  type GatewayError,
  OutputRejectedError,
  type OutputRejection,
  type StepFailure,
} from "./errors.ts";
import type { CallEvent } from "./event.ts";
import type { ChatResponse } from "./types.ts";

/** Options for {@link CallTracker}. */
export interface CallTrackerOptions {
  readonly context: ClientContext;
  readonly id: string;
  readonly route: string;
  readonly mode: CallEvent["mode"];
  readonly streamed: boolean;
}

/** One call's running record. */
export class CallTracker {
  readonly id: string;
  readonly route: string;
  readonly startedAt: number;
  attempts = 0;
  readonly rejections: OutputRejection[] = [];
  readonly #failures = new Map<number, StepFailure>();
  readonly #context: ClientContext;
  readonly #mode: CallEvent["mode"];
  readonly #streamed: boolean;
  #lastEntry: ChainEntry | null = null;
  #status = 0;
  #cacheStatus: "HIT" | "MISS" | null = null;
  #logId: string | null = null;
  #recorded = false;
  #metadata: CallEvent["metadata"];
  #decision: PolicyDecision | undefined;

  constructor({ context, id, route, mode, streamed }: CallTrackerOptions) {
    this.#context = context;
    this.id = id;
    this.route = route;
    this.#mode = mode;
    this.#streamed = streamed;
    this.startedAt = context.now();
  }

  /** Wall time since the call started. */
  elapsedMs(): number {
    return Math.max(0, this.#context.now() - this.startedAt);
  }

  /** Notes the metadata the call sends and what the route's policy decided, if it has one. */
  notePolicy(metadata: CallEvent["metadata"], decision: PolicyDecision | undefined): void {
    this.#metadata = metadata;
    this.#decision = decision;
  }

  /** Notes an answer's headers: status, cache status, log id and the serving step. */
  noteAnswer(sent: SentAttempt): void {
    this.#status = sent.response.status;
    this.#cacheStatus = sent.cacheStatus;
    this.#logId = sent.logId;
    if (sent.served !== null) this.#lastEntry = sent.served.entry;
  }

  /** Notes an attempt that got no answer (network error, timeout). */
  noteNoAnswer(): void {
    this.#status = 0;
    this.#cacheStatus = null;
    this.#logId = null;
  }

  /**
   * Notes a step's failure. A later failure of the same step replaces the earlier one, unless it
   * carries less detail (the gateway reports only the last step's error).
   */
  noteFailure(entry: ChainEntry, status: number | null, error: GatewayError | null): void {
    const previous = this.#failures.get(entry.index);
    this.#lastEntry = entry;
    if (previous !== undefined && error === null && previous.error !== null) return;
    this.#failures.set(entry.index, { ...referenceOf(entry), status, error });
  }

  /** Notes that the validator refused an answer (from `entry`, when the answer named it). */
  noteRejection(entry: ChainEntry | null, reason: string): OutputRejectedError {
    this.rejections.push(
      entry === null
        ? { index: null, provider: null, model: null, reason }
        : { ...referenceOf(entry), reason },
    );
    const error = new OutputRejectedError({ rejections: [...this.rejections] });
    if (entry !== null) this.noteFailure(entry, 200, error);
    return error;
  }

  /** The error for a call whose steps are all used up. */
  exhaustedError(): GatewayError {
    const failures = [...this.#failures.values()];
    const onlyRejections = failures.every((failure) =>
      OutputRejectedError.isInstance(failure.error),
    );
    if (this.rejections.length > 0 && onlyRejections) {
      return new OutputRejectedError({ rejections: [...this.rejections] });
    }
    return new AllStepsFailedError({ route: this.route, steps: failures });
  }

  /**
   * Records the call's success event once, and charges the answer's cost to the cost budget the
   * policy let the call through (that happens whether or not a recorder is set).
   */
  recordSuccess(response: ChatResponse): void {
    if (!this.#recorded) {
      chargeBudget(this.#context.budgetLedger, this.#decision, response.cost, this.#context.now());
    }
    this.#record({
      step: response.served.index,
      provider: response.served.provider,
      model: response.served.model ?? response.served.responseModel,
      ok: true,
      tokensIn: response.usage.tokensIn,
      tokensOut: response.usage.tokensOut,
      cost: response.cost,
      errorCode: null,
    });
  }

  /** Records the call's failure event once. */
  recordFailure(errorCode: string): void {
    this.#record({
      step: null,
      provider: this.#lastEntry?.step.provider ?? null,
      model: this.#lastEntry?.step.model ?? null,
      ok: false,
      tokensIn: null,
      tokensOut: null,
      cost: null,
      errorCode,
    });
  }

  /** The cost of an answer: 0 from the cache, null without a price. */
  costOf(
    entry: ChainEntry | null,
    responseModel: string,
    usage: TokenUsage,
    cached: boolean,
  ): number | null {
    if (cached) return 0;
    const prices = this.#context.options.prices;
    if (entry === null || prices === undefined) return null;
    const { provider, model } = entry.step;
    return (
      computeCost(prices, provider, model, usage) ??
      computeCost(prices, provider, responseModel, usage) ??
      null
    );
  }

  #record(
    outcome: Pick<
      CallEvent,
      "step" | "provider" | "model" | "ok" | "tokensIn" | "tokensOut" | "cost" | "errorCode"
    >,
  ): void {
    if (this.#recorded) return;
    this.#recorded = true;
    if (this.#context.options.recorder === undefined) return;
    const event: CallEvent = {
      time: new Date(this.startedAt).toISOString(),
      id: this.id,
      gateway: this.#context.gatewayId,
      route: this.route,
      mode: this.#mode,
      step: outcome.step,
      provider: outcome.provider,
      model: outcome.model,
      ok: outcome.ok,
      tokensIn: outcome.tokensIn,
      tokensOut: outcome.tokensOut,
      cost: outcome.cost,
      errorCode: outcome.errorCode,
      status: this.#status,
      cacheStatus: this.#cacheStatus,
      latencyMs: this.elapsedMs(),
      logId: this.#logId,
      attempts: this.attempts,
      streamed: this.#streamed,
    };
    if (this.#metadata !== undefined) event.metadata = { ...this.#metadata };
    const decision = this.#decision;
    if (decision !== undefined) {
      event.policy = { chain: decision.chain, rule: decision.rule };
      if (decision.budget !== undefined) event.policy.budget = decision.budget;
    }
    if (this.rejections.length > 0) {
      event.rejectedSteps = this.rejections.flatMap((rejection) =>
        rejection.index === null ? [] : [rejection.index],
      );
    }
    this.#context.record(event);
  }
}
