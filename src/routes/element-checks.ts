/**
 * @module
 * What each element type needs in its properties and ports (aig-spec §6), as sentences: a model
 * names a provider and a model; a conditional has its conditions (an object, or its JSON text as
 * Pulumi stores it); a rate element has a key, a limit of 0 or more, a positive window and a limit
 * type of `count` or `cost`; a percentage element has at most five `N%` outputs that add up to at
 * most 100 %, and an `else` output unless they add up to exactly 100 %.
 */
import type { RouteElement } from "./elements.ts";

/** Most percentage outputs of one element (Cloudflare: "up to 5", plus `else`). */
export const maxPercentageOutputs = 5;

/** Every problem with one element's properties and ports. */
export function findElementProblems(element: RouteElement): string[] {
  const properties = element.properties ?? {};
  const named = `element "${element.id}" (${element.type})`;
  switch (element.type as string) {
    case "model": {
      const provider = properties.provider ?? properties.aiGatewayDynamicRoutingProvider;
      return isText(provider) && isText(properties.model)
        ? []
        : [`${named} needs a provider and a model`];
    }
    case "conditional":
      return conditionsProblem(properties.conditions ?? properties.condition, named);
    case "rate":
    case "rate_limit":
      return rateProblems(properties, named);
    case "percentage":
      return percentageProblems(element, named);
    default:
      return [];
  }
}

function conditionsProblem(conditions: unknown, named: string): string[] {
  let value = conditions;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return [`${named} has conditions that are not valid JSON`];
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? []
    : [`${named} needs conditions, e.g. {"metadata.plan":{"$eq":"free"}}`];
}

function rateProblems(properties: Record<string, unknown>, named: string): string[] {
  const problems: string[] = [];
  if (!isText(properties.key)) problems.push(`${named} needs a key, e.g. "metadata.user_id"`);
  if (!(typeof properties.limit === "number" && properties.limit >= 0)) {
    problems.push(`${named} needs a limit of 0 or more`);
  }
  const window = properties.window ?? properties.interval;
  if (!(typeof window === "number" && window > 0)) {
    problems.push(`${named} needs a window in seconds above 0`);
  }
  if (properties.limitType !== "count" && properties.limitType !== "cost") {
    problems.push(`${named} needs limitType "count" or "cost"`);
  }
  return problems;
}

function percentageProblems(element: RouteElement, named: string): string[] {
  const problems: string[] = [];
  let total = 0;
  let shares = 0;
  for (const port of Object.keys(element.outputs)) {
    if (port === "else") continue;
    const match = /^(\d+(?:\.\d+)?)%$/.exec(port);
    const share = match ? Number(match[1]) : Number.NaN;
    if (!(share > 0 && share <= 100)) {
      problems.push(
        `${named} has output "${port}": outputs are percentages such as "10%", or else`,
      );
      continue;
    }
    shares += 1;
    total += share;
  }
  if (shares > maxPercentageOutputs) {
    problems.push(
      `${named} has ${shares} percentage outputs; at most ${maxPercentageOutputs} (plus else)`,
    );
  }
  if (total > 100 + 1e-9) problems.push(`${named} sends ${total} % of requests; at most 100 %`);
  else if (total < 100 - 1e-9 && !element.outputs.else) {
    problems.push(
      `${named} sends only ${total} % of requests: add an else output for the rest, or make the percentages add up to 100`,
    );
  }
  return problems;
}

function isText(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
