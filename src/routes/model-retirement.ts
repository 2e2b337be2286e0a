/**
 * @module
 * Model churn: `stepwise:models` can say when a provider retires a model and what replaces it
 * (`retires: { date, replacement }`). Every step using such a model, in any chain of any route, is
 * a warning before the date and an error from that day on (calls to a retired model fail), each
 * naming the replacement. A replacement that is itself retired by then is followed to the one
 * that is not.
 */
import type { ConfigFinding } from "../config/findings.ts";
import type { ModelPrices, StepwiseConfig } from "../config/schema.ts";
import { defaultChainName, routeChains } from "./policy.ts";

const dayMs = 86_400_000;

/** Every step that uses a retiring or retired model, as of `now` (epoch ms). */
export function findModelRetirements(config: StepwiseConfig, now: number): ConfigFinding[] {
  const findings: ConfigFinding[] = [];
  config.gateways.forEach((gateway, gatewayIndex) => {
    for (const [routeName, route] of Object.entries(gateway.routes)) {
      const routePath = ["gateways", gatewayIndex, "routes", routeName];
      for (const chain of routeChains(route)) {
        chain.steps.forEach((step, stepIndex) => {
          const model = `${step.provider}/${step.model}`;
          const retires = config.models[model]?.retires;
          if (retires === undefined) return;
          const day = Date.parse(`${retires.date}T00:00:00Z`);
          const retired = now >= day;
          const replacement = currentReplacement(config.models, retires.replacement, now);
          const chainPath = chain.name === defaultChainName ? ["steps"] : ["chains", chain.name];
          const where =
            chain.name === defaultChainName
              ? `step ${stepIndex} of route "${routeName}"`
              : `step ${stepIndex} of chain "${chain.name}" of route "${routeName}"`;
          const days = Math.ceil((day - now) / dayMs);
          findings.push({
            severity: retired ? "error" : "warning",
            path: [...routePath, ...chainPath, stepIndex, "model"],
            message: retired
              ? `${where} (gateway "${gateway.id}") uses ${model}, which ${step.provider} retired on ${retires.date}, so its calls fail: replace it with ${replacement}`
              : `${where} (gateway "${gateway.id}") uses ${model}, which ${step.provider} retires on ${retires.date} (in ${days} day${days === 1 ? "" : "s"}): replace it with ${replacement} before then`,
          });
        });
      }
    }
  });
  return findings;
}

/** Follows replacements past the ones already retired at `now` (stopping at a cycle). */
function currentReplacement(models: ModelPrices, first: string, now: number): string {
  const seen = new Set<string>();
  let model = first;
  for (;;) {
    const next = models[model]?.retires;
    if (next === undefined || seen.has(model)) return model;
    if (now < Date.parse(`${next.date}T00:00:00Z`)) return model;
    seen.add(model);
    model = next.replacement;
  }
}
