/**
 * @module
 * One route's counts in the report's explanation (`explain-tally.ts` keeps them all): each
 * step's tally (index, provider, model: calls served with their tokens, failures by reason) and
 * its time buckets, and {@link TallyLookup}, which finds an event's route and served step on every
 * event without building a key string.
 */
import type { CallEvent } from "../client/event.ts";
import type { FailureReason } from "./failure-reasons.ts";

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

/** The tally of `route`'s step (index, provider, model), made on first use. */
export function stepOf(
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

/** Counts one failure of `step` for `reason`. */
export function countFailure(step: StepTally, reason: FailureReason): void {
  step.failed += 1;
  step.reasons.set(reason, (step.reasons.get(reason) ?? 0) + 1);
}

/** Adds `other`'s counts into `into`, key by key. */
export function addCounts<Key>(into: Map<Key, number>, other: ReadonlyMap<Key, number>): void {
  for (const [key, count] of other) into.set(key, (into.get(key) ?? 0) + count);
}

/** A served step's tally and its label (`openai/gpt-4o-mini`), found once per step. */
export interface ServedStep {
  readonly tally: StepTally;
  readonly label: string;
}

/**
 * Finds an event's route and served step without building a key string: gateway → route tally,
 * and per route step → provider → model → the step's tally and served label. Looked up on every
 * event, so the strings that key the routes and steps are built once per route and step, not once
 * per event.
 */
export class TallyLookup {
  readonly #routesByName = new Map<string, Map<string, RouteExplainTally>>();
  readonly #servedSteps = new Map<
    RouteExplainTally,
    Map<unknown, Map<unknown, Map<unknown, ServedStep>>>
  >();
  /** Makes (or finds) the route's tally where its owner keeps them. */
  readonly #routeNamed: (gateway: string, name: string) => RouteExplainTally;

  constructor(routeNamed: (gateway: string, name: string) => RouteExplainTally) {
    this.#routeNamed = routeNamed;
  }

  /** The tally of the route `name` of `gateway`. */
  routeOf(gateway: string, name: string): RouteExplainTally {
    let byRoute = this.#routesByName.get(gateway);
    if (byRoute === undefined) {
      byRoute = new Map();
      this.#routesByName.set(gateway, byRoute);
    }
    let route = byRoute.get(name);
    if (route === undefined) {
      route = this.#routeNamed(gateway, name);
      byRoute.set(name, route);
    }
    return route;
  }

  /** The tally and label of the step that served `event` on `route`. */
  servedStep(route: RouteExplainTally, event: CallEvent): ServedStep {
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
}
