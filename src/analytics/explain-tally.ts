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
import { ExactSum } from "./exact-sum.ts";
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

/** A served step's tally and its label (`openai/gpt-4o-mini`), found once per step. */
interface ServedStep {
  readonly tally: StepTally;
  readonly label: string;
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
    const route = this.#routeOf(event.gateway, event.route);
    const known = event.step === null ? null : this.#servedStep(route, event);
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

  /**
   * Found without building a key string: gateway → route tally, and per route step → provider →
   * model → the step's tally and served label. Looked up on every event, so the strings that key
   * `routes` and `steps` are built once per route and step, not once per event.
   */
  readonly #routesByName = new Map<string, Map<string, RouteExplainTally>>();
  readonly #servedSteps = new Map<
    RouteExplainTally,
    Map<unknown, Map<unknown, Map<unknown, ServedStep>>>
  >();

  #routeOf(gateway: string, name: string): RouteExplainTally {
    let byRoute = this.#routesByName.get(gateway);
    if (byRoute === undefined) {
      byRoute = new Map();
      this.#routesByName.set(gateway, byRoute);
    }
    let route = byRoute.get(name);
    if (route === undefined) {
      route = this.#route(routeId(gateway, name), gateway, name);
      byRoute.set(name, route);
    }
    return route;
  }

  #servedStep(route: RouteExplainTally, event: CallEvent): ServedStep {
    let bySteps = this.#servedSteps.get(route);
    if (bySteps === undefined) {
      bySteps = new Map();
      this.#servedSteps.set(route, bySteps);
    }
    let byProvider = bySteps.get(event.step);
    if (byProvider === undefined) {
      byProvider = new Map();
      bySteps.set(event.step, byProvider);
    }
    let byModel = byProvider.get(event.provider);
    if (byModel === undefined) {
      byModel = new Map();
      byProvider.set(event.provider, byModel);
    }
    let found = byModel.get(event.model);
    if (found === undefined) {
      found = {
        tally: stepOf(route, event.step, event.provider, event.model),
        label: servedLabel(event.provider, event.model),
      };
      byModel.set(event.model, found);
    }
    return found;
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

function addCounts<Key>(into: Map<Key, number>, other: ReadonlyMap<Key, number>): void {
  for (const [key, count] of other) into.set(key, (into.get(key) ?? 0) + count);
}
