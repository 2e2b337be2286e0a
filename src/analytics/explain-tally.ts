/**
 * @module
 * The running counts behind the report's explanation (`explain.ts`), per route: for each step
 * (index, provider, model) the calls it served with their tokens and cost, and the failures the
 * events list of it by reason (`failure-reasons.ts`); and per time bucket the calls each provider/
 * model served and their cost. One pass, bounded memory: routes × steps × reasons, and routes ×
 * buckets × serving models (the buckets follow the aggregator's automatic size, merged exactly
 * when it coarsens). A route's counts, and how an event finds them, are in
 * `explain-route-tally.ts`.
 */
import type { CallEvent } from "../client/event.ts";
import { ExactSum } from "./exact-sum.ts";
import {
  addCounts,
  type BucketTally,
  countFailure,
  type RouteExplainTally,
  type StepTally,
  stepOf,
  TallyLookup,
} from "./explain-route-tally.ts";
import { failureReasonOf } from "./failure-reasons.ts";
import { routeId } from "./steering-tally.ts";

/**
 * An {@link ExplainTally} as plain data (structured-cloneable), to carry it to another thread:
 * the routes with their counts, and each step's and bucket's cost as exact partials.
 */
export interface ExplainTallyState {
  readonly bucketMs: number;
  readonly routes: ReadonlyMap<
    string,
    {
      readonly gateway: string;
      readonly route: string;
      readonly steps: ReadonlyMap<string, { readonly tally: StepTally; readonly cost: number[] }>;
      readonly buckets: ReadonlyMap<
        number,
        { readonly tally: BucketTally; readonly cost: number[] }
      >;
    }
  >;
}

/** Counts the explanation of each counted event, per route. */
export class ExplainTally {
  readonly routes = new Map<string, RouteExplainTally>();
  #bucketMs = 0;
  /**
   * Costs summed exactly (`exact-sum.ts`), so that tallies merged from several threads give the
   * very cost one pass gives; each tally's `cost` is set from its sum by {@link settle}.
   */
  readonly #costs = new Map<StepTally | BucketTally, ExactSum>();
  /** Finds each event's route and served step (`explain-route-tally.ts`). */
  readonly #lookup = new TallyLookup((gateway, name) =>
    this.#route(routeId(gateway, name), gateway, name),
  );

  #costOf(tally: StepTally | BucketTally): ExactSum {
    let sum = this.#costs.get(tally);
    if (sum === undefined) {
      sum = new ExactSum();
      this.#costs.set(tally, sum);
    }
    return sum;
  }

  /** Sets every step's and bucket's `cost` from its exact sum; call before reading them. */
  settle(): void {
    for (const [tally, sum] of this.#costs) tally.cost = sum.value;
  }

  /** The tally as plain data ({@link ExplainTally.merge} takes it). */
  state(): ExplainTallyState {
    const partials = (tally: StepTally | BucketTally) => [
      ...(this.#costs.get(tally)?.partials ?? []),
    ];
    return {
      bucketMs: this.#bucketMs,
      routes: new Map(
        [...this.routes].map(([id, route]) => [
          id,
          {
            gateway: route.gateway,
            route: route.route,
            steps: new Map(
              [...route.steps].map(([key, tally]) => [key, { tally, cost: partials(tally) }]),
            ),
            buckets: new Map(
              [...route.buckets].map(([start, tally]) => [start, { tally, cost: partials(tally) }]),
            ),
          },
        ]),
      ),
    };
  }

  /** Adds a tally carried as plain data (another thread's {@link ExplainTally.state}). */
  merge(state: ExplainTallyState): void {
    if (state.bucketMs > this.#bucketMs) {
      if (this.#bucketMs === 0) this.#bucketMs = state.bucketMs;
      else this.coarsen(state.bucketMs);
    }
    for (const [id, other] of state.routes) {
      const route = this.#route(id, other.gateway, other.route);
      for (const { tally, cost } of other.steps.values()) {
        const into = stepOf(route, tally.step, tally.provider, tally.model);
        into.served += tally.served;
        into.tokensIn += tally.tokensIn;
        into.tokensOut += tally.tokensOut;
        into.unknownTokens += tally.unknownTokens;
        into.failed += tally.failed;
        addCounts(into.reasons, tally.reasons);
        this.#costOf(into).merge(ExactSum.of(cost));
      }
      for (const [start, { tally, cost }] of other.buckets) {
        const into = this.#bucketAt(route, Math.floor(start / this.#bucketMs) * this.#bucketMs);
        into.calls += tally.calls;
        addCounts(into.served, tally.served);
        this.#costOf(into).merge(ExactSum.of(cost));
      }
    }
  }

  #route(id: string, gateway: string, name: string): RouteExplainTally {
    let route = this.routes.get(id);
    if (route === undefined) {
      route = { gateway, route: name, steps: new Map(), buckets: new Map() };
      this.routes.set(id, route);
    }
    return route;
  }

  #bucketAt(route: RouteExplainTally, start: number): BucketTally {
    let bucket = route.buckets.get(start);
    if (bucket === undefined) {
      bucket = { calls: 0, cost: 0, served: new Map() };
      route.buckets.set(start, bucket);
    }
    return bucket;
  }

  /**
   * Adds one counted event at `time`, in buckets of `bucketMs` (the aggregator's, now; 0 keeps no
   * buckets).
   */
  add(event: CallEvent, time: number, bucketMs: number): void {
    const route = this.#lookup.routeOf(event.gateway, event.route);
    const known = event.step === null ? null : this.#lookup.servedStep(route, event);
    const served = known?.tally ?? null;
    if (served !== null) {
      served.served += 1;
      if (event.cost) this.#costOf(served).add(event.cost);
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
    if (bucketMs > 0) this.#addToBucket(route, known?.label ?? "", time, event.cost, bucketMs);
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
          const sum = this.#costs.get(bucket);
          if (sum !== undefined) this.#costOf(into).merge(sum);
          this.#costs.delete(bucket);
          into.cost = this.#costs.get(into)?.value ?? 0;
          addCounts(into.served, bucket.served);
        }
      }
      route.buckets = merged;
    }
    this.#bucketMs = bucketMs;
  }

  #addToBucket(
    route: RouteExplainTally,
    label: string,
    time: number,
    cost: number | null,
    bucketMs: number,
  ): void {
    if (bucketMs !== this.#bucketMs) {
      if (this.#bucketMs === 0) this.#bucketMs = bucketMs;
      else this.coarsen(bucketMs);
    }
    const bucket = this.#bucketAt(route, Math.floor(time / this.#bucketMs) * this.#bucketMs);
    bucket.calls += 1;
    if (cost) this.#costOf(bucket).add(cost);
    bucket.served.set(label, (bucket.served.get(label) ?? 0) + 1);
  }
}
