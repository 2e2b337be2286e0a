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
 */
import type { GroupKey } from "./dimensions.ts";
import type { ExplainTally, RouteExplainTally, StepTally } from "./explain-tally.ts";
import { type FailureReason, failureReasons } from "./failure-reasons.ts";
import { routeId } from "./steering-tally.ts";

/** USD per million tokens of a model. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

/** What the cost of fallback is priced with: the config's prices and each route's primary. */
export interface Pricing {
  /** `provider/model` → price per million tokens (the config's `models`). */
  readonly prices: Readonly<Record<string, ModelPrice>>;
  /** Each route's first step, per gateway. */
  readonly primaries: ReadonlyArray<{
    readonly gateway: string;
    readonly route: string;
    readonly provider: string;
    readonly model: string;
  }>;
}

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

/** What fallback cost on a route (or all routes), beside the primary. */
export interface FallbackCost {
  calls: number;
  cost: number;
  /** The route's primary: from the config, else the step 0 its events show; null if neither. */
  primary: { provider: string; model: string; from: "config" | "events" } | null;
  /** The same calls at the primary's price; null without a price (see the module doc). */
  onPrimary: number | null;
  /** cost − onPrimary; null when onPrimary is. */
  extra: number | null;
  /** Fallback calls whose tokens are unknown. */
  unknownTokens: number;
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

function primaryOf(
  steps: readonly StepExplanation[],
  gateway: string,
  route: string,
  pricing: Pricing | null,
): FallbackCost["primary"] {
  const configured =
    pricing?.primaries.find((entry) => entry.gateway === gateway && entry.route === route) ??
    (() => {
      const byName = pricing?.primaries.filter((entry) => entry.route === route) ?? [];
      return byName.length === 1 ? byName[0] : undefined;
    })();
  if (configured) return { provider: configured.provider, model: configured.model, from: "config" };
  const first = steps
    .filter((step) => step.step === 0 && step.provider !== null && step.model !== null)
    .sort((a, b) => b.served + b.failed - (a.served + a.failed))[0];
  return first
    ? { provider: first.provider ?? "", model: first.model ?? "", from: "events" }
    : null;
}

function fallbackOf(
  steps: readonly StepExplanation[],
  primary: FallbackCost["primary"],
  pricing: Pricing | null,
): FallbackCost {
  let calls = 0;
  let cost = 0;
  let tokensIn = 0;
  let tokensOut = 0;
  let unknownTokens = 0;
  for (const step of steps) {
    if (step.step === null || step.step < 1 || step.served === 0) continue;
    calls += step.served;
    cost += step.cost;
    tokensIn += step.tokensIn;
    tokensOut += step.tokensOut;
    unknownTokens += step.unknownTokens;
  }
  const price =
    primary && pricing ? pricing.prices[`${primary.provider}/${primary.model}`] : undefined;
  const onPrimary =
    calls === 0 ? 0 : price ? (tokensIn * price.input + tokensOut * price.output) / 1e6 : null;
  return {
    calls,
    cost,
    primary,
    onPrimary,
    extra: onPrimary === null ? null : cost - onPrimary,
    unknownTokens,
  };
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

/** The pricing of a config: its price table and each route's first step. */
export function pricingOf(config: {
  readonly models: Readonly<Record<string, ModelPrice>>;
  readonly gateways: ReadonlyArray<{
    readonly id: string;
    readonly routes: Readonly<
      Record<string, { readonly steps: ReadonlyArray<{ provider: string; model: string }> }>
    >;
  }>;
}): Pricing {
  const primaries: Array<Pricing["primaries"][number]> = [];
  for (const gateway of config.gateways) {
    for (const [route, { steps }] of Object.entries(gateway.routes)) {
      const first = steps[0];
      if (first)
        primaries.push({
          gateway: gateway.id,
          route,
          provider: first.provider,
          model: first.model,
        });
    }
  }
  return { prices: config.models, primaries };
}
