/**
 * @module
 * Cross-field rules of a route's policy, each reported at the field to fix: every chain a rule
 * names exists and every chain is used; no rule hides the ones after it; a split's shares fit in
 * 100 % and can be told apart; a budget changes something; the metadata the policy reads fits in
 * Cloudflare's five `cf-aig-metadata` entries. Runs on raw input as well as parsed; skips what is
 * not the right shape (the schema reports that).
 */
import { maxMetadataEntries } from "../wire/custom-metadata.ts";
import { defaultChainName } from "./policy-schema.ts";

type Issue = { message: string; path: PropertyKey[] };
type Loose = Record<string, unknown>;

const asObject = (value: unknown): Loose =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Loose) : {};
const asString = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;

/** Every policy problem of one route. `routePath` is the route's config path. */
export function findPolicyProblems(
  routeValue: unknown,
  routeName: string,
  routePath: readonly PropertyKey[],
): Issue[] {
  const route = asObject(routeValue);
  const chains = Object.keys(asObject(route.chains));
  const known = [defaultChainName, ...chains];
  const issues: Issue[] = [];
  if (!Array.isArray(route.policy)) {
    if (chains.length > 0) {
      issues.push({
        path: [...routePath, "chains"],
        message: `route "${routeName}" declares chains (${chains.join(", ")}) but no policy picks them: add policy rules that use them, or remove chains`,
      });
    }
    return issues;
  }
  const used = new Set<string>();
  const metadataKeys = new Set<string>();
  const rules = route.policy;
  const reference = (value: unknown, path: PropertyKey[], role: string) => {
    const name = asString(value);
    if (name === undefined) return;
    used.add(name);
    if (!known.includes(name)) {
      issues.push({
        path,
        message: `${role} names chain "${name}", which route "${routeName}" does not declare: use one of ${known.join(", ")} ("${defaultChainName}" is the route's steps), or add it under chains`,
      });
    }
  };
  rules.forEach((ruleValue, index) => {
    const rule = asObject(ruleValue);
    const rulePath = [...routePath, "policy", index];
    const when = asObject(rule.when);
    for (const key of Object.keys(when)) metadataKeys.add(key);
    if (rule.when === undefined && index < rules.length - 1) {
      issues.push({
        path: rulePath,
        message: `rule ${index} has no when, so it takes every request and ${index + 1 === rules.length - 1 ? `rule ${index + 1} is` : `rules ${index + 1}–${rules.length - 1} are`} never reached: give it a when, or move it last`,
      });
    }
    const target = asString(rule.use) ?? defaultChainName;
    if (rule.use === undefined) used.add(defaultChainName);
    else reference(rule.use, [...rulePath, "use"], `rule ${index}'s use`);
    issues.push(...splitProblems(rule, rulePath, index, reference));
    const budget = asObject(rule.budget);
    if (rule.budget !== undefined) {
      const per = asString(budget.per);
      if (per !== undefined) metadataKeys.add(per);
      reference(budget.over, [...rulePath, "budget", "over"], `rule ${index}'s budget.over`);
      if (asString(budget.over) === target && rule.split === undefined) {
        issues.push({
          path: [...rulePath, "budget", "over"],
          message: `rule ${index} takes chain "${target}" within its budget and over it alike, so the budget changes nothing: set budget.over to a cheaper chain, or remove the budget`,
        });
      }
    }
  });
  for (const name of chains) {
    if (!used.has(name)) {
      issues.push({
        path: [...routePath, "chains", name],
        message: `chain "${name}" of route "${routeName}" is used by no rule: name it in a rule's use, split or budget.over, or remove it`,
      });
    }
  }
  if (metadataKeys.size > maxMetadataEntries) {
    issues.push({
      path: [...routePath, "policy"],
      message: `route "${routeName}"'s policy reads ${metadataKeys.size} metadata keys (${[...metadataKeys].join(", ")}), but Cloudflare keeps only ${maxMetadataEntries} cf-aig-metadata entries per request: use at most ${maxMetadataEntries}`,
    });
  }
  return issues;
}

function splitProblems(
  rule: Loose,
  rulePath: PropertyKey[],
  index: number,
  reference: (value: unknown, path: PropertyKey[], role: string) => void,
): Issue[] {
  if (rule.split === undefined) return [];
  const issues: Issue[] = [];
  const split = asObject(rule.split);
  const seen = new Map<number, string>();
  let total = 0;
  for (const [chain, share] of Object.entries(split)) {
    reference(chain, [...rulePath, "split", chain], `rule ${index}'s split`);
    if (typeof share !== "number") continue;
    total += share;
    const earlier = seen.get(share);
    if (earlier !== undefined) {
      issues.push({
        path: [...rulePath, "split", chain],
        message: `chains "${earlier}" and "${chain}" both take ${share} %, and Cloudflare names a split's outputs by their percentage ("${share}%"), so it cannot tell them apart: give them different shares (e.g. ${share} and ${share + 1})`,
      });
    } else {
      seen.set(share, chain);
    }
  }
  if (total > 100) {
    issues.push({
      path: [...rulePath, "split"],
      message: `rule ${index}'s split shares add up to ${total} %: they may add up to at most 100 (the rest takes the rule's use)`,
    });
  } else if (total === 100 && rule.use !== undefined) {
    issues.push({
      path: [...rulePath, "use"],
      message: `rule ${index}'s split already sends 100 % of its requests, so use: ${String(rule.use)} is never taken: lower a share, or remove use`,
    });
  }
  return issues;
}
