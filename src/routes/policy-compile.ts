/**
 * @module
 * A route with a policy → Cloudflare dynamic-route elements, in the order `policy.ts` evaluates:
 *
 * ```
 * start → rule-0 (conditional: when) ─true→ rule-0-budget (rate) ─success→ rule-0-split (percentage) → chains
 *               │                                              └fallback→ budget.over's chain
 *               └false→ rule-1 … → the default chain
 * ```
 *
 * A rule without `when` has no conditional; one without budget or split leads straight into its
 * chain. Each chain is one fallback chain of model elements, shared by every output that leads to
 * it, and only chains some path reaches are emitted. Ids come from positions and names only
 * (`rule-<i>`, `rule-<i>-budget`, `rule-<i>-split`, `model-<i>` for the default chain,
 * `<chain>-model-<i>` for the others), so the same config always compiles to the same elements.
 */
import type { PolicyRule } from "../config/policy-schema.ts";
import type { RouteConfig } from "../config/schema.ts";
import { modelElementId, type RateElementProperties, type RouteElement } from "./elements.ts";
import { RouteGraphBuilder } from "./graph-builder.ts";
import { chainSteps, defaultChainName, splitEntries } from "./policy.ts";
import { whenConditions } from "./policy-conditions.ts";

/** Element ids of rule `index`. */
export const ruleElementIds = {
  condition: (index: number) => `rule-${index}`,
  budget: (index: number) => `rule-${index}-budget`,
  split: (index: number) => `rule-${index}-split`,
};

/** The id of a chain's first model element. */
export function chainEntryId(chain: string): string {
  return modelElementId(0, chain === defaultChainName ? undefined : chain);
}

/**
 * Compiles a route's policy and chains into elements.
 * @throws {RangeError} for a policy naming a chain the route does not declare (the config checks
 *   refuse such a config first).
 */
export function compilePolicyRoute(route: RouteConfig): RouteElement[] {
  const rules = route.policy ?? [];
  const graph = new RouteGraphBuilder();
  const reached: string[] = [];
  const target = (chain: string): string => {
    if (!reached.includes(chain)) reached.push(chain);
    return chainEntryId(chain);
  };
  // Rule i's entry, found without building it: its conditional, else its body's first element.
  const entryOf = (index: number): string => {
    const rule = rules[index];
    if (rule === undefined) return target(defaultChainName);
    return rule.when === undefined
      ? bodyEntry(rule, index, target)
      : ruleElementIds.condition(index);
  };
  const entry = entryOf(0);
  for (const [index, rule] of rules.entries()) {
    const body = bodyEntry(rule, index, target);
    if (rule.when !== undefined) {
      graph.conditional(
        ruleElementIds.condition(index),
        whenConditions(rule.when),
        body,
        entryOf(index + 1),
      );
    }
    addBody(graph, rule, index, target);
    if (rule.when === undefined) break;
  }
  for (const name of reached) {
    const steps = chainSteps(route, name);
    if (steps === undefined) {
      throw new RangeError(`the policy names chain "${name}", which the route does not declare`);
    }
    graph.chain(steps, name === defaultChainName ? {} : { name });
  }
  return graph.build(entry);
}

/** The first element of a rule once its `when` holds. */
function bodyEntry(rule: PolicyRule, index: number, target: (chain: string) => string): string {
  if (rule.budget !== undefined) return ruleElementIds.budget(index);
  if (rule.split !== undefined) return ruleElementIds.split(index);
  return target(rule.use ?? defaultChainName);
}

function addBody(
  graph: RouteGraphBuilder,
  rule: PolicyRule,
  index: number,
  target: (chain: string) => string,
): void {
  const use = rule.use ?? defaultChainName;
  const afterBudget = rule.split === undefined ? target(use) : ruleElementIds.split(index);
  if (rule.budget !== undefined) {
    const properties: RateElementProperties = {
      key: `metadata.${rule.budget.per}`,
      limit: rule.budget.cost ?? rule.budget.requests ?? 0,
      limitType: rule.budget.cost === undefined ? "count" : "cost",
      window: rule.budget.windowSeconds,
    };
    graph.rate(ruleElementIds.budget(index), properties, afterBudget, target(rule.budget.over));
  }
  if (rule.split !== undefined) {
    const entries = splitEntries(rule.split);
    const total = entries.reduce((sum, [, share]) => sum + share, 0);
    const outputs: [string, string][] = entries.map(([chain, share]) => [
      `${share}%`,
      target(chain),
    ]);
    if (total < 100) outputs.push(["else", target(use)]);
    graph.percentage(ruleElementIds.split(index), outputs);
  }
}
