/**
 * @module
 * What fallback cost on a route, beside what the primary would have cost (the report's
 * explanation, `explain.ts`, whose module doc defines the figures): each route's primary, from the
 * config or else from the step 0 its events show, and its fallback calls' tokens priced at the
 * primary's price; and the pricing a config gives (its price table and each route's first step).
 */

/** What the fallback figures read of each step of a route (its `StepExplanation`). */
export interface StepFigures {
  readonly step: number | null;
  readonly provider: string | null;
  readonly model: string | null;
  readonly served: number;
  readonly failed: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly cost: number;
  readonly unknownTokens: number;
}

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

/**
 * The primary of `route` on `gateway`: the config's first step (by gateway and route, else by the
 * route's name when one gateway has it), else the step 0 the route's events show most.
 */
export function primaryOf(
  steps: readonly StepFigures[],
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

/** The cost of a route's fallback calls (served by step ≥ 1), and at `primary`'s price. */
export function fallbackOf(
  steps: readonly StepFigures[],
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
