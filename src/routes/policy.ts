/**
 * @module
 * The routing policy, evaluated: a route and a request's metadata → the chain its call takes.
 * This is what the client does for universal calls; for `dynamic/<route>` Cloudflare walks the
 * compiled elements (`policy-compile.ts`), and a property test holds the two to the same chain for
 * the same metadata, split draw and budget state.
 *
 * Rules are tried in order; the first whose `when` holds decides (no `when`: every request):
 * 1. its budget, if any: a request over it takes `budget.over` and nothing else of the rule;
 * 2. its split, if any: a draw in [0, 1) picks a chain by the shares, in chain-name order;
 * 3. otherwise its `use` (default: the route's `steps`, the chain named `default`).
 * No rule matching also means `default`.
 */
import type { PolicyBudget, PolicySplit } from "../config/policy-schema.ts";
import type { RouteConfig, StepConfig } from "../config/schema.ts";
import type { BudgetLedger } from "./budget-ledger.ts";
import { matchesWhen, type RequestMetadata } from "./policy-conditions.ts";

/**
 * The name a policy gives the route's `steps`. The config schema has the same constant (a test
 * holds them equal); this one keeps `src/config` (and zod) out of the client's bundle.
 */
export const defaultChainName = "default";

/** A chain of a route: its name (`default` for `steps`) and its steps. */
export interface NamedChain {
  readonly name: string;
  readonly steps: readonly StepConfig[];
}

/** A cost budget a request passed within, to charge with the answer's cost. */
export interface BudgetCharge {
  readonly key: string;
  readonly windowMs: number;
}

/** What the policy decided for one request. */
export interface PolicyDecision {
  /** The chain taken, `default` for the route's `steps`. */
  readonly chain: string;
  readonly steps: readonly StepConfig[];
  /** The rule that decided (0-based), or null when none matched. */
  readonly rule: number | null;
  /** The deciding rule's budget: `within` it, or `over` it (its `over` chain taken). */
  readonly budget?: "within" | "over";
  /** For a cost budget the request is within: where to charge its answer's cost. */
  readonly costBudget?: BudgetCharge;
}

export interface PolicyInput {
  /** The request's metadata, as sent in `cf-aig-metadata`. */
  readonly metadata?: RequestMetadata;
  /** A draw in [0, 1) for a split; called only when a split is reached. Default `Math.random`. */
  readonly random?: () => number;
  /** What budgets have spent. Without one, no budget is ever over (and nothing is counted). */
  readonly ledger?: BudgetLedger;
  /** Names the route's budgets in the ledger (e.g. `gateway/route`). Default: none. */
  readonly scope?: string;
  /** Epoch ms. Default `Date.now()`. */
  readonly now?: number;
}

/** Every chain of a route, `default` (its steps) first. */
export function routeChains(route: RouteConfig): NamedChain[] {
  return [
    { name: defaultChainName, steps: route.steps },
    ...Object.entries(route.chains ?? {}).map(([name, steps]) => ({ name, steps })),
  ];
}

/** The steps of a chain by name; undefined for a name the route does not declare. */
export function chainSteps(route: RouteConfig, name: string): readonly StepConfig[] | undefined {
  return name === defaultChainName ? route.steps : route.chains?.[name];
}

/**
 * Decides the chain of one request. A route without a policy always takes `default`.
 * @example choosePolicyChain(route, { metadata: { plan: "free" }, ledger }).chain // "economy"
 */
export function choosePolicyChain(route: RouteConfig, input: PolicyInput = {}): PolicyDecision {
  const metadata = input.metadata ?? {};
  const rules = route.policy ?? [];
  for (const [index, rule] of rules.entries()) {
    if (rule.when !== undefined && !matchesWhen(rule.when, metadata)) continue;
    const use = rule.use ?? defaultChainName;
    const budget = rule.budget === undefined ? undefined : spend(rule.budget, index, input);
    if (budget?.over) {
      return decision(route, rule.budget!.over, index, { budget: "over" });
    }
    const chain = rule.split === undefined ? use : pickSplit(rule.split, use, input);
    return decision(route, chain, index, {
      ...(budget === undefined ? {} : { budget: "within" as const }),
      ...(budget?.charge === undefined ? {} : { costBudget: budget.charge }),
    });
  }
  return decision(route, defaultChainName, null, {});
}

/** The chain a split sends a draw to: shares in chain-name order, the rest to `use`. */
export function pickSplit(split: PolicySplit, use: string, input: Pick<PolicyInput, "random">) {
  const point = (input.random ?? Math.random)() * 100;
  let cumulative = 0;
  for (const [chain, share] of splitEntries(split)) {
    cumulative += share;
    if (point < cumulative) return chain;
  }
  return use;
}

/** A split's chains and shares in the order both paths walk them: by chain name. */
export function splitEntries(split: PolicySplit): [string, number][] {
  return Object.entries(split).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The ledger key of a rule's budget for one metadata value. */
export function budgetKey(scope: string | undefined, rule: number, value: unknown): string {
  return `${scope ?? ""}:rule-${rule}:${value === undefined ? "" : String(value)}`;
}

function spend(
  budget: PolicyBudget,
  rule: number,
  input: PolicyInput,
): { over: boolean; charge?: BudgetCharge } {
  const ledger = input.ledger;
  if (ledger === undefined) return { over: false };
  const metadata = input.metadata ?? {};
  const value = Object.hasOwn(metadata, budget.per) ? metadata[budget.per] : undefined;
  const key = budgetKey(input.scope, rule, value);
  const windowMs = budget.windowSeconds * 1000;
  const now = input.now ?? Date.now();
  if (budget.cost !== undefined) {
    return ledger.total(key, windowMs, now) < budget.cost
      ? { over: false, charge: { key, windowMs } }
      : { over: true };
  }
  return { over: !ledger.tryConsume(key, windowMs, now, budget.requests ?? 0) };
}

function decision(
  route: RouteConfig,
  chain: string,
  rule: number | null,
  extra: Pick<PolicyDecision, "budget" | "costBudget">,
): PolicyDecision {
  const steps = chainSteps(route, chain);
  if (steps === undefined) {
    // The config checks refuse a policy naming an undeclared chain; this is a route built by hand.
    throw new RangeError(`the policy names chain "${chain}", which the route does not declare`);
  }
  return { chain, steps, rule, ...extra };
}
