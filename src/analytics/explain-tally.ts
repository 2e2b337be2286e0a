/**
 * @module
 * The running counts behind the report's explanation (`explain.ts`), per route: for each step
 * (index, provider, model) the calls it served with their tokens and cost, and the failures the
 * events list of it by reason (`failure-reasons.ts`); and per time bucket the calls each provider/
 * model served and their cost. One pass, bounded memory: routes × steps × reasons, and routes ×
 * buckets × serving models (the buckets follow the aggregator's automatic size, merged exactly
 * when it coarsens).
 */
import type { CallEvent } from "../client/event.ts";
import { type FailureReason, failureReasonOf } from "./failure-reasons.ts";

/** Counts of one step of a route. */
export interface StepTally {
  readonly step: number | null;
  readonly provider: string | null;
  readonly model: string | null;
  /** Calls the step served, their tokens and cost; calls whose tokens were unknown. */
  served: number;
  tokensIn: number;
  tokensOut: number;
  cost: number;
  unknownTokens: number;
  /** Failures of the step listed by the events, by reason. */
  failed: number;
  readonly reasons: Map<FailureReason, number>;
}

/** One time bucket of a route: calls per serving step (null for none), and cost. */
export interface BucketTally {
  calls: number;
  cost: number;
  readonly served: Map<StepTally | null, number>;
}

/** The counts of one route. */
export interface RouteExplainTally {
  readonly gateway: string;
  readonly route: string;
  /** Every step seen, in the order first seen. */
  readonly steps: StepTally[];
  /** step → provider → model → tally: found without building a key string. */
  readonly index: Map<number | null, Map<string | null, Map<string | null, StepTally>>>;
  buckets: Map<number, BucketTally>;
}

/** Counts the explanation of each counted event, per route. */
export class ExplainTally {
  /** gateway → route → tally. */
  readonly #routes = new Map<string, Map<string, RouteExplainTally>>();
  #bucketMs = 0;

  /** The tally of a route, if any event of it was counted. */
  route(gateway: string, route: string): RouteExplainTally | undefined {
    return this.#routes.get(gateway)?.get(route);
  }

  /**
   * Adds one counted event at `time`, in buckets of `bucketMs` (the aggregator's, now; 0 keeps no
   * buckets).
   */
  add(event: CallEvent, time: number, bucketMs: number): void {
    let routes = this.#routes.get(event.gateway);
    if (routes === undefined) {
      routes = new Map();
      this.#routes.set(event.gateway, routes);
    }
    let route = routes.get(event.route);
    if (route === undefined) {
      route = {
        gateway: event.gateway,
        route: event.route,
        steps: [],
        index: new Map(),
        buckets: new Map(),
      };
      routes.set(event.route, route);
    }
    const served =
      event.step === null ? null : stepOf(route, event.step, event.provider, event.model);
    if (served !== null) {
      served.served += 1;
      served.cost += event.cost ?? 0;
      if (event.tokensIn === null && event.tokensOut === null) served.unknownTokens += 1;
      served.tokensIn += event.tokensIn ?? 0;
      served.tokensOut += event.tokensOut ?? 0;
    }
    const failedSteps = event.failedSteps;
    if (failedSteps !== undefined) {
      for (const failed of failedSteps) {
        countFailure(
          stepOf(route, failed.step, failed.provider, failed.model),
          failureReasonOf(failed),
        );
      }
    } else if (!event.ok) {
      // A failed call that lists no step: its own status and code are the step's.
      countFailure(
        stepOf(route, event.step, event.provider, event.model),
        failureReasonOf({ status: event.status, errorCode: event.errorCode }),
      );
    }
    if (bucketMs > 0) this.#addToBucket(route, event, served, time, bucketMs);
  }

  /** Every route's tally. */
  *routes(): IterableIterator<RouteExplainTally> {
    for (const routes of this.#routes.values()) yield* routes.values();
  }

  /** Merges every route's buckets into buckets of `bucketMs` (a multiple of the current size). */
  coarsen(bucketMs: number): void {
    if (bucketMs <= this.#bucketMs) return;
    for (const route of this.routes()) {
      const merged = new Map<number, BucketTally>();
      for (const [start, bucket] of route.buckets) {
        const target = Math.floor(start / bucketMs) * bucketMs;
        const into = merged.get(target);
        if (into === undefined) merged.set(target, bucket);
        else {
          into.calls += bucket.calls;
          into.cost += bucket.cost;
          for (const [step, calls] of bucket.served) {
            into.served.set(step, (into.served.get(step) ?? 0) + calls);
          }
        }
      }
      route.buckets = merged;
    }
    this.#bucketMs = bucketMs;
  }

  #addToBucket(
    route: RouteExplainTally,
    event: CallEvent,
    served: StepTally | null,
    time: number,
    bucketMs: number,
  ): void {
    if (bucketMs !== this.#bucketMs) {
      if (this.#bucketMs === 0) this.#bucketMs = bucketMs;
      else this.coarsen(bucketMs);
    }
    const start = Math.floor(time / this.#bucketMs) * this.#bucketMs;
    let bucket = route.buckets.get(start);
    if (bucket === undefined) {
      bucket = { calls: 0, cost: 0, served: new Map() };
      route.buckets.set(start, bucket);
    }
    bucket.calls += 1;
    bucket.cost += event.cost ?? 0;
    bucket.served.set(served, (bucket.served.get(served) ?? 0) + 1);
  }
}

function stepOf(
  route: RouteExplainTally,
  step: number | null,
  provider: string | null,
  model: string | null,
): StepTally {
  let providers = route.index.get(step);
  if (providers === undefined) {
    providers = new Map();
    route.index.set(step, providers);
  }
  let models = providers.get(provider);
  if (models === undefined) {
    models = new Map();
    providers.set(provider, models);
  }
  let tally = models.get(model);
  if (tally === undefined) {
    tally = {
      step,
      provider,
      model,
      served: 0,
      tokensIn: 0,
      tokensOut: 0,
      cost: 0,
      unknownTokens: 0,
      failed: 0,
      reasons: new Map(),
    };
    models.set(model, tally);
    route.steps.push(tally);
  }
  return tally;
}

function countFailure(step: StepTally, reason: FailureReason): void {
  step.failed += 1;
  step.reasons.set(reason, (step.reasons.get(reason) ?? 0) + 1);
}
