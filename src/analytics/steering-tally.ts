/**
 * @module
 * The running counts behind the report's steering section (`steering.ts`): one tally per route
 * with its steered steps and hedges. Only events that list a skipped or demoted step or a hedge
 * reach it, so a file without any costs one property check per event; memory is bounded by
 * routes × steered steps × reasons.
 */
import type { CallEvent } from "../client/event.ts";
import type { GroupKey } from "./dimensions.ts";
import { ExactSum } from "./exact-sum.ts";

/** The running counts of one route; a kind stays null until an event lists it. */
export interface RouteTally {
  readonly key: GroupKey;
  skippingCalls: number | null;
  demotingCalls: number | null;
  hedges: HedgeTally | null;
  readonly steps: Map<string, StepTally>;
}

/** The counts of one steered step (index, provider, model) of a route. */
export interface StepTally {
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly skipped: ReasonTally;
  readonly demoted: ReasonTally;
}

/** Calls that steered a step one way, and calls per reason. */
export interface ReasonTally {
  calls: number;
  readonly reasons: Map<string, number>;
}

/** The running counts of a route's hedges. */
export interface HedgeTally {
  hedgedCalls: number;
  due: number;
  sent: number;
  readonly notSent: Map<string, number>;
  won: number;
  bothFailed: number;
  extraCost: number;
}

/** The id of a route in the tallies. */
export function routeId(gateway: string, route: string): string {
  return `${gateway}\u0000${route}`;
}

/** An empty hedge tally. */
export function emptyHedgeTally(): HedgeTally {
  return {
    hedgedCalls: 0,
    due: 0,
    sent: 0,
    notSent: new Map(),
    won: 0,
    bothFailed: 0,
    extraCost: 0,
  };
}

/** A {@link SteeringTally} as plain data (structured-cloneable), to carry it to another thread. */
export interface SteeringTallyState {
  readonly routes: ReadonlyMap<string, RouteTally>;
  /** Each route's hedge extra cost as exact partials (`exact-sum.ts`). */
  readonly extraCost: ReadonlyMap<string, readonly number[]>;
}

/** Counts the steering each counted event lists, per route. */
export class SteeringTally {
  readonly routes = new Map<string, RouteTally>();
  /** Hedges' extra cost per route, summed exactly so that merged tallies give the same total. */
  readonly #extraCost = new Map<string, ExactSum>();

  /** The tally as plain data ({@link SteeringTally.merge} takes it). */
  state(): SteeringTallyState {
    return {
      routes: this.routes,
      extraCost: new Map([...this.#extraCost].map(([id, sum]) => [id, [...sum.partials]])),
    };
  }

  /** Adds a tally carried as plain data (from another thread's {@link SteeringTally.state}). */
  merge(state: SteeringTallyState): void {
    for (const [id, other] of state.routes) {
      const route = this.#route(id, other.key);
      route.skippingCalls = addNullable(route.skippingCalls, other.skippingCalls);
      route.demotingCalls = addNullable(route.demotingCalls, other.demotingCalls);
      if (other.hedges !== null) {
        route.hedges ??= emptyHedgeTally();
        const tally = route.hedges;
        tally.hedgedCalls += other.hedges.hedgedCalls;
        tally.due += other.hedges.due;
        tally.sent += other.hedges.sent;
        tally.won += other.hedges.won;
        tally.bothFailed += other.hedges.bothFailed;
        addCounts(tally.notSent, other.hedges.notSent);
      }
      for (const [stepId, step] of other.steps) {
        let tally = route.steps.get(stepId);
        if (tally === undefined) {
          tally = emptyStepTally(step.step, step.provider, step.model);
          route.steps.set(stepId, tally);
        }
        for (const action of ["skipped", "demoted"] as const) {
          tally[action].calls += step[action].calls;
          addCounts(tally[action].reasons, step[action].reasons);
        }
      }
    }
    for (const [id, partials] of state.extraCost) {
      const sum = this.#extraCostOf(id);
      sum.merge(ExactSum.of(partials));
      const hedges = this.routes.get(id)?.hedges;
      if (hedges) hedges.extraCost = sum.value;
    }
  }

  #route(id: string, key: GroupKey): RouteTally {
    let route = this.routes.get(id);
    if (route === undefined) {
      route = { key, skippingCalls: null, demotingCalls: null, hedges: null, steps: new Map() };
      this.routes.set(id, route);
    }
    return route;
  }

  #extraCostOf(id: string): ExactSum {
    let sum = this.#extraCost.get(id);
    if (sum === undefined) {
      sum = new ExactSum();
      this.#extraCost.set(id, sum);
    }
    return sum;
  }

  add(event: CallEvent): void {
    const { skippedSteps, demotedSteps, hedges } = event;
    if (skippedSteps === undefined && demotedSteps === undefined && hedges === undefined) return;
    const id = routeId(event.gateway, event.route);
    const route = this.#route(id, { gateway: event.gateway, route: event.route });
    if (skippedSteps !== undefined) {
      route.skippingCalls = (route.skippingCalls ?? 0) + (skippedSteps.length > 0 ? 1 : 0);
      countSteps(route, skippedSteps, "skipped");
    }
    if (demotedSteps !== undefined) {
      route.demotingCalls = (route.demotingCalls ?? 0) + (demotedSteps.length > 0 ? 1 : 0);
      countSteps(route, demotedSteps, "demoted");
    }
    if (hedges !== undefined) {
      route.hedges ??= emptyHedgeTally();
      const tally = route.hedges;
      let sentAny = false;
      const extraCost = this.#extraCostOf(id);
      for (const hedge of hedges) {
        tally.due += 1;
        if (!hedge.sent) {
          const reason = hedge.reason ?? "unknown";
          tally.notSent.set(reason, (tally.notSent.get(reason) ?? 0) + 1);
          continue;
        }
        sentAny = true;
        tally.sent += 1;
        if (hedge.kept === "hedge") tally.won += 1;
        else if (hedge.kept === "none") tally.bothFailed += 1;
        extraCost.add(hedge.extraCost);
      }
      tally.extraCost = extraCost.value;
      if (sentAny) tally.hedgedCalls += 1;
    }
  }
}

/** Adds one call's list of steered steps: each step once, each of its reasons once. */
function countSteps(
  route: RouteTally,
  list: NonNullable<CallEvent["skippedSteps"]>,
  action: "skipped" | "demoted",
): void {
  const seen = list.length > 1 ? new Set<string>() : null;
  for (const { step, provider, model, reason } of list) {
    const id = `${step}\u0000${provider}\u0000${model}`;
    let tally = route.steps.get(id);
    if (tally === undefined) {
      tally = emptyStepTally(step, provider, model);
      route.steps.set(id, tally);
    }
    const counts = tally[action];
    if (seen === null || !seen.has(id)) counts.calls += 1;
    seen?.add(id);
    if (seen === null || !seen.has(`${id}\u0000${reason}`)) {
      counts.reasons.set(reason, (counts.reasons.get(reason) ?? 0) + 1);
    }
    seen?.add(`${id}\u0000${reason}`);
  }
}

function emptyStepTally(step: number, provider: string, model: string): StepTally {
  return {
    step,
    provider,
    model,
    skipped: { calls: 0, reasons: new Map() },
    demoted: { calls: 0, reasons: new Map() },
  };
}

function addNullable(into: number | null, other: number | null): number | null {
  return other === null ? into : (into ?? 0) + other;
}

function addCounts(into: Map<string, number>, other: ReadonlyMap<string, number>): void {
  for (const [name, count] of other) into.set(name, (into.get(name) ?? 0) + count);
}
