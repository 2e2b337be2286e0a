/**
 * @module
 * The report's explanation: per route, each step's calls served and failures by reason, what
 * fallback cost beside what the primary would have cost, and per time bucket the calls each
 * provider/model served and their cost.
 *
 * Definitions (every renderer and test uses these):
 * - **steps**: one row per step (index, provider, model) that served or failed on the route;
 *   **served** calls / the route's calls is its **share**; **failed**: the failures the events
 *   list of it (`failedSteps`; a failed call that lists none counts under its own step), once per
 *   listed failure, by reason (`failure-reasons.ts`).
 * - **fallback calls**: calls served by step ≥ 1; their **cost** as recorded.
 * - **on primary**: what the same calls' tokens (in and out) would have cost at the price of the
 *   route's primary (its first step in the config, priced from the config's `models`); null when
 *   the report has no config, or the config no price for the primary. **extra** = cost − on
 *   primary (negative when the fallback is cheaper). Calls whose tokens are unknown are counted
 *   apart (`unknownTokens`) and priced at nothing on either side.
 * - Totals add up the routes; a total `onPrimary` is null when a route with fallback calls has
 *   none.
 *
 * The fallback figures are priced in `fallback-cost.ts`.
 */
import type { GroupKey } from "./dimensions.ts";
import type { RouteExplainTally, StepTally } from "./explain-route-tally.ts";
import type { ExplainTally } from "./explain-tally.ts";
import { type FailureReason, failureReasons } from "./failure-reasons.ts";
import { type FallbackCost, fallbackOf, type Pricing, primaryOf } from "./fallback-cost.ts";
import { routeId } from "./steering-tally.ts";

export type { FallbackCost, ModelPrice, Pricing } from "./fallback-cost.ts";
export { pricingOf } from "./fallback-cost.ts";

/** One step of a route. */
export interface StepExplanation {
  step: number | null;
  provider: string | null;
  model: string | null;
  served: number;
  /** served / the route's calls. */
  share: number | null;
  tokensIn: number;
  tokensOut: number;
  cost: number;
  /** Served calls whose tokens were unknown. */
  unknownTokens: number;
  failed: number;
  /** Failures per reason, in `failureReasons` order (only reasons seen). */
  reasons: Partial<Record<FailureReason, number>>;
}

/** One time bucket of a route. */
export interface ExplainPoint {
  start: string;
  end: string;
  calls: number;
  cost: number;
  /** Calls per serving `provider/model`; `none` for calls no step served. */
  served: Record<string, number>;
}

/** The explanation of one route. */
export interface RouteExplanation {
  key: GroupKey;
  calls: number;
  cost: number;
  failed: number;
  reasons: Partial<Record<FailureReason, number>>;
  steps: StepExplanation[];
  fallback: FallbackCost;
  series: ExplainPoint[];
}

/** The report's explanation section. */
export interface Explanation {
  /** True when the report was given prices (a config). */
  priced: boolean;
  bucketMs: number;
  routes: RouteExplanation[];
  totals: {
    calls: number;
    cost: number;
    failed: number;
    reasons: Partial<Record<FailureReason, number>>;
    fallback: Omit<FallbackCost, "primary">;
  };
}

const iso = (time: number) => new Date(Math.max(-8.64e15, Math.min(8.64e15, time))).toISOString();

const rate = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

function orderedReasons(
  counts: Iterable<[FailureReason, number]>,
): Partial<Record<FailureReason, number>> {
  const map = new Map(counts);
  const out: Partial<Record<FailureReason, number>> = {};
  for (const reason of failureReasons) {
    const count = map.get(reason);
    if (count) out[reason] = count;
  }
  return out;
}

function addReasons(
  into: Map<FailureReason, number>,
  reasons: Partial<Record<FailureReason, number>>,
): void {
  for (const [reason, count] of Object.entries(reasons) as Array<[FailureReason, number]>) {
    into.set(reason, (into.get(reason) ?? 0) + count);
  }
}

function compareSteps(a: StepTally, b: StepTally): number {
  if (a.step !== b.step) {
    if (a.step === null) return 1;
    if (b.step === null) return -1;
    return a.step - b.step;
  }
  return (
    (a.provider ?? "").localeCompare(b.provider ?? "") ||
    (a.model ?? "").localeCompare(b.model ?? "")
  );
}

function seriesOf(tally: RouteExplainTally | undefined, bucketMs: number): ExplainPoint[] {
  if (!tally) return [];
  return [...tally.buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, bucket]) => ({
      start: iso(start),
      end: iso(start + bucketMs),
      calls: bucket.calls,
      cost: bucket.cost,
      served: Object.fromEntries(
        [...bucket.served.entries()]
          .map(([label, calls]): [string, number] => [label === "" ? "none" : label, calls])
          .sort(([a], [b]) => a.localeCompare(b)),
      ),
    }));
}

/**
 * The explanation of the report's routes, from the tallies of the counted events; the primary of
 * each route is the step 0 its events show until {@link withPricing} names the config's.
 */
export function explanationOf(
  tally: ExplainTally,
  routes: ReadonlyArray<{
    readonly key: GroupKey;
    readonly figures: { readonly calls: number; readonly cost: number };
  }>,
  bucketMs: number,
): Explanation {
  tally.coarsen(bucketMs);
  const rows = routes.map((row): RouteExplanation => {
    const gateway = String(row.key.gateway);
    const route = String(row.key.route);
    const routeTally = tally.routes.get(routeId(gateway, route));
    const reasons = new Map<FailureReason, number>();
    const steps = [...(routeTally?.steps.values() ?? [])]
      .sort(compareSteps)
      .map((step): StepExplanation => {
        const stepReasons = orderedReasons(step.reasons);
        addReasons(reasons, stepReasons);
        return {
          step: step.step,
          provider: step.provider,
          model: step.model,
          served: step.served,
          share: rate(step.served, row.figures.calls),
          tokensIn: step.tokensIn,
          tokensOut: step.tokensOut,
          cost: step.cost,
          unknownTokens: step.unknownTokens,
          failed: step.failed,
          reasons: stepReasons,
        };
      });
    return {
      key: { gateway, route },
      calls: row.figures.calls,
      cost: row.figures.cost,
      failed: steps.reduce((sum, step) => sum + step.failed, 0),
      reasons: orderedReasons(reasons),
      steps,
      fallback: fallbackOf(steps, primaryOf(steps, gateway, route, null), null),
      series: seriesOf(routeTally, bucketMs),
    };
  });
  return { priced: false, bucketMs, routes: rows, totals: totalsOf(rows) };
}

/** The explanation with each route's fallback priced at its primary from the config. */
export function withPricing(explanation: Explanation, pricing: Pricing): Explanation {
  const routes = explanation.routes.map((row) => {
    const primary = primaryOf(row.steps, String(row.key.gateway), String(row.key.route), pricing);
    return { ...row, fallback: fallbackOf(row.steps, primary, pricing) };
  });
  return { ...explanation, priced: true, routes, totals: totalsOf(routes) };
}

function totalsOf(rows: readonly RouteExplanation[]): Explanation["totals"] {
  const reasons = new Map<FailureReason, number>();
  for (const row of rows) addReasons(reasons, row.reasons);
  const sum = (pick: (row: RouteExplanation) => number) =>
    rows.reduce((total, row) => total + pick(row), 0);
  const priceKnown = rows.every((row) => row.fallback.onPrimary !== null);
  const onPrimary = priceKnown ? sum((row) => row.fallback.onPrimary ?? 0) : null;
  const fallbackCost = sum((row) => row.fallback.cost);
  return {
    calls: sum((row) => row.calls),
    cost: sum((row) => row.cost),
    failed: sum((row) => row.failed),
    reasons: orderedReasons(reasons),
    fallback: {
      calls: sum((row) => row.fallback.calls),
      cost: fallbackCost,
      onPrimary,
      extra: onPrimary === null ? null : fallbackCost - onPrimary,
      unknownTokens: sum((row) => row.fallback.unknownTokens),
    },
  };
}
