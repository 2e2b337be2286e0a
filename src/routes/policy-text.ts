/**
 * @module
 * A policy in one line per rule, for people: `plan=free tier=complex → default`,
 * `plan=pro tier=complex → frontier (budget $0.02 per 3600 s per plan, then default)`,
 * `plan=pro → candidate 10 %, else default`. Used by `stepwise validate` and the demo.
 */
import type {
  MetadataTest,
  PolicyBudget,
  PolicyRule,
  PolicyWhen,
} from "../config/policy-schema.ts";
import { defaultChainName, splitEntries } from "./policy.ts";

/** `plan=free tier=[moderate,complex] region≠eu`, or `any request` without a `when`. */
export function describeWhen(when: PolicyWhen | undefined): string {
  if (when === undefined) return "any request";
  return Object.entries(when)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, test]) => describeTest(key, test))
    .join(" ");
}

/** `$0.02 per 3600 s per plan` or `100 requests per 60 s per user_id`. */
export function describeBudget(budget: PolicyBudget): string {
  const amount =
    budget.cost === undefined
      ? `${budget.requests} request${budget.requests === 1 ? "" : "s"}`
      : `$${budget.cost}`;
  return `${amount} per ${budget.windowSeconds} s per ${budget.per}`;
}

/** One rule: `when → chain`, with its split and budget. */
export function describeRule(rule: PolicyRule): string {
  const use = rule.use ?? defaultChainName;
  const target =
    rule.split === undefined
      ? use
      : [
          ...splitEntries(rule.split).map(([chain, share]) => `${chain} ${share} %`),
          ...(Object.values(rule.split).reduce((sum, share) => sum + share, 0) < 100
            ? [`else ${use}`]
            : []),
        ].join(", ");
  const budget =
    rule.budget === undefined
      ? ""
      : ` (budget ${describeBudget(rule.budget)}, then ${rule.budget.over})`;
  return `${describeWhen(rule.when)} → ${target}${budget}`;
}

function describeTest(key: string, test: MetadataTest): string {
  const text = (value: unknown) => String(value);
  if (Array.isArray(test)) return `${key}=[${test.map(text).join(",")}]`;
  if (typeof test === "object" && test !== null) {
    const excluded = Array.isArray(test.not) ? test.not : [test.not];
    return excluded.map((value) => `${key}≠${text(value)}`).join(" ");
  }
  return `${key}=${text(test)}`;
}
