/**
 * @module
 * One signature's counts scaled to its calls (`rows-state.ts`): the event is counted once by the
 * aggregator's own parts, then a group's per-call counts are multiplied and its tokens, cost and
 * latency taken from the row's sums ({@link statsOf}); the explanation's served step and bucket get
 * the row's tokens and cost ({@link servedState}, {@link bucketState}); a tally is doubled by
 * merging its own state ({@link scaled}), exact for every count and cost. Costs arrive as the two
 * exact integer sums of `events-sql.ts` ({@link costPartials}).
 */
import type { AnalyticsEvent } from "../dimensions.ts";
import { ExactSum } from "../exact-sum.ts";
import { servedLabel } from "../explain-route-tally.ts";
import type { ExplainTallyState } from "../explain-tally.ts";
import { GroupStats, type GroupStatsState } from "../figures.ts";
import type { LatencySketchState } from "../latency-sketch.ts";
import { routeId } from "../steering-tally.ts";

/** A row's (or a signature's) additive sums. */
export interface Sums {
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costA: bigint;
  readonly costB: bigint;
}

/** A signature's event and sums, for its served step's tokens and cost. */
export interface ServedSums extends Sums {
  readonly event: AnalyticsEvent;
}

/** The exact partials of `a · 2⁻⁴⁰ + b · 2⁻⁹⁶` (see `events-sql.ts`). */
export function costPartials(costA: bigint, costB: bigint): number[] {
  const sum = new ExactSum();
  for (const [whole, exponent] of [
    [costA, -40],
    [costB, -96],
  ] as const) {
    let rest = whole;
    let shift = exponent;
    while (rest > 0n) {
      sum.add(Number(rest & 0xfffffffffffffn) * 2 ** shift);
      rest >>= 52n;
      shift += 52;
    }
  }
  return [...sum.partials];
}

/** A group's figures for `calls` calls of `event`, with the row's sums and latency. */
export function statsOf(
  event: AnalyticsEvent,
  calls: number,
  sums: Sums,
  latency: LatencySketchState,
): GroupStats {
  const one = new GroupStats();
  one.add({ ...event, tokensIn: null, tokensOut: null, cost: null });
  const state = one.state();
  const [callsOne, ok, answered, fallbacks, , , hits, lookups, budget, noStep] = state.counts;
  const scaledState: GroupStatsState = {
    counts: [
      callsOne * calls,
      ok * calls,
      answered * calls,
      fallbacks * calls,
      sums.tokensIn,
      sums.tokensOut,
      hits * calls,
      lookups * calls,
      budget * calls,
      noStep * calls,
    ],
    cost: costPartials(sums.costA, sums.costB),
    stepCounts: state.stepCounts.map((count) => (count === undefined ? undefined : count * calls)),
    latency,
  };
  return GroupStats.of(scaledState);
}

/** The explanation's bucket counts of a row: calls per serving provider/model, and their cost. */
export function bucketState(
  event: AnalyticsEvent,
  start: number,
  calls: number,
  sums: Sums,
  bucketMs: number,
): ExplainTallyState {
  const label = event.step === null ? "" : servedLabel(event.provider, event.model);
  return {
    bucketMs,
    routes: new Map([
      [
        routeId(event.gateway, event.route),
        {
          gateway: event.gateway,
          route: event.route,
          steps: new Map(),
          buckets: new Map([
            [
              start,
              {
                tally: { calls, cost: 0, served: new Map([[label, calls]]) },
                cost: costPartials(sums.costA, sums.costB),
              },
            ],
          ]),
        },
      ],
    ]),
  };
}

/** The served step's tokens and cost of a signature (its calls are counted by the event). */
export function servedState(signature: ServedSums): ExplainTallyState {
  const { event } = signature;
  const step = {
    step: event.step,
    provider: event.provider,
    model: event.model,
    served: 0,
    tokensIn: signature.tokensIn,
    tokensOut: signature.tokensOut,
    cost: 0,
    unknownTokens: 0,
    failed: 0,
    reasons: new Map(),
  };
  return {
    bucketMs: 0,
    routes: new Map([
      [
        routeId(event.gateway, event.route),
        {
          gateway: event.gateway,
          route: event.route,
          steps: new Map([
            ["served", { tally: step, cost: costPartials(signature.costA, signature.costB) }],
          ]),
          buckets: new Map(),
        },
      ],
    ]),
  };
}

/** `one`'s state counted `times` times, by doubling (`merge` is exact, costs included). */
export function scaled<State, Tally extends { merge(state: State): void; state(): State }>(
  make: () => Tally,
  one: Tally,
  times: number,
): State {
  const total = make();
  let power = one;
  let left = times;
  while (left > 0) {
    if (left % 2 === 1) total.merge(power.state());
    left = Math.floor(left / 2);
    if (left > 0) {
      const twice = make();
      const state = power.state();
      twice.merge(state);
      twice.merge(state);
      power = twice;
    }
  }
  return total.state();
}
