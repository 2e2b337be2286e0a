/**
 * @module
 * A route's routing policy as the client sees it: the problems a hand-written route has (a chain
 * step naming an unknown provider, a rule naming a chain the route lacks), checked once at
 * construction, and the route one call works with — the chain its policy picked for a universal
 * call, or every chain's steps for a dynamic call, where the gateway picks.
 */
import type { RouteConfig, StepConfig } from "../config/schema.ts";
import { getProvider } from "../providers/index.ts";
import { chainSteps, defaultChainName, routeChains } from "../routes/policy.ts";

/** What is wrong with a route's chains and policy, one line each; empty when nothing is. */
export function routeChainProblems(name: string, route: RouteConfig): string[] {
  const problems: string[] = [];
  for (const chain of routeChains(route)) {
    const where = chain.name === defaultChainName ? "" : ` chain "${chain.name}"`;
    for (const [index, step] of chain.steps.entries()) {
      try {
        getProvider(step.provider);
      } catch (error) {
        problems.push(`route "${name}"${where} step ${index}: ${(error as Error).message}`);
      }
    }
  }
  for (const missing of undeclaredChains(route)) {
    problems.push(
      `route "${name}": its policy names chain "${missing}", which it does not declare; add it under chains or name one of ${routeChains(
        route,
      )
        .map((chain) => `"${chain.name}"`)
        .join(", ")}`,
    );
  }
  return problems;
}

/**
 * The route as one call sees it: a universal call on a policy route sends its chosen chain; a
 * dynamic call on one may be served by any chain the gateway picks, so every chain's steps are
 * candidates for the step that served (each provider and model once).
 */
export function routeForCall(
  route: RouteConfig,
  chosen: readonly StepConfig[] | undefined,
): RouteConfig {
  if (chosen !== undefined) return { ...route, steps: [...chosen] };
  if (route.policy === undefined) return route;
  const seen = new Set<string>();
  const steps = routeChains(route)
    .flatMap((chain) => chain.steps)
    .filter((step) => {
      const identity = `${step.provider}/${step.model}`;
      if (seen.has(identity)) return false;
      seen.add(identity);
      return true;
    });
  return { ...route, steps };
}

/** Chains a route's policy names that the route does not declare (the config checks refuse them). */
function undeclaredChains(route: RouteConfig): string[] {
  const named = (route.policy ?? []).flatMap((rule) => [
    rule.use ?? defaultChainName,
    ...Object.keys(rule.split ?? {}),
    ...(rule.budget === undefined ? [] : [rule.budget.over]),
  ]);
  return [...new Set(named)].filter((name) => chainSteps(route, name) === undefined);
}
