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
import { routeId } from "./steering-tally.ts";

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

/** One time bucket of a route: calls per serving provider/model (`""` for none), and cost. */
export interface BucketTally {
  calls: number;
  cost: number;
  readonly served: Map<string, number>;
}

/** The counts of one route. */
export interface RouteExplainTally {
  readonly gateway: string;
  readonly route: string;
  readonly steps: Map<string, StepTally>;
  buckets: Map<number, BucketTally>;
}

/** The label of a serving provider/model (`openai/gpt-4o-mini`), `""` when no step served. */
export function servedLabel(provider: string | null, model: string | null): string {
  if (provider === null && model === null) return "";
  return `${provider ?? "?"}/${model ?? "?"}`;
}

/** Counts the explanation of each counted event, per route. */
export class ExplainTally {
  readonly routes = new Map<string, RouteExplainTally>();
  #bucketMs = 0;

  /**
   * Adds one counted event at `time`, in buckets of `bucketMs` (the aggregator's, now; 0 keeps no
   * buckets).
   */
  add(event: CallEvent, time: number, bucketMs: number): void {
    const id = routeId(event.gateway, event.route);
    let route = this.routes.get(id);
    if (route === undefined) {
      route = {
        gateway: event.gateway,
        route: event.route,
        steps: new Map(),
        buckets: new Map(),
      };
      this.routes.set(id, route);
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
    if (bucketMs > 0) this.#addToBucket(route, event, time, bucketMs);
  }

  /** Merges every route's buckets into buckets of `bucketMs` (a multiple of the current size). */
  coarsen(bucketMs: number): void {
    if (bucketMs <= this.#bucketMs) return;
    for (const route of this.routes.values()) {
      const merged = new Map<number, BucketTally>();
      for (const [start, bucket] of route.buckets) {
        const target = Math.floor(start / bucketMs) * bucketMs;
        const into = merged.get(target);
        if (into === undefined) merged.set(target, bucket);
        else {
          into.calls += bucket.calls;
          into.cost += bucket.cost;
          for (const [label, calls] of bucket.served) {
            into.served.set(label, (into.served.get(label) ?? 0) + calls);
          }
        }
      }
      route.buckets = merged;
    }
    this.#bucketMs = bucketMs;
  }

  #addToBucket(route: RouteExplainTally, event: CallEvent, time: number, bucketMs: number): void {
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
    const label = event.step === null ? "" : servedLabel(event.provider, event.model);
    bucket.served.set(label, (bucket.served.get(label) ?? 0) + 1);
  }
}

function stepOf(
  route: RouteExplainTally,
  step: number | null,
  provider: string | null,
  model: string | null,
): StepTally {
  const id = `${step ?? ""}\u0000${provider ?? ""}\u0000${model ?? ""}`;
  let tally = route.steps.get(id);
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
    route.steps.set(id, tally);
  }
  return tally;
}

function countFailure(step: StepTally, reason: FailureReason): void {
  step.failed += 1;
  step.reasons.set(reason, (step.reasons.get(reason) ?? 0) + 1);
}
