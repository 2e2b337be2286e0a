/**
 * @module
 * Spend limits: cost budgets per window, checked before a request is forwarded and charged
 * after it completes (so, as on Cloudflare, a request that starts under budget may end over it).
 * A rule applies when its provider/model/metadata filters match; `metadata` keys in `partition`
 * mode keep one budget per value.
 */
import type { SpendRule } from "../state/gateway-settings.ts";
import { WindowCounter } from "./window-counter.ts";

/** What a request is charged as. */
export interface SpendSubject {
  readonly provider: string;
  readonly model: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** The first rule over budget, with Cloudflare's message. */
export interface SpendRefusal {
  readonly ruleId: string;
  readonly message: string;
}

export class SpendTracker {
  readonly #counter = new WindowCounter();

  /** The first enabled, matching rule whose window has reached its limit; undefined if none. */
  check(rules: readonly SpendRule[], subject: SpendSubject, now: number): SpendRefusal | undefined {
    for (const [index, rule] of rules.entries()) {
      const key = ruleKey(rule, index, subject);
      if (key === undefined) continue;
      const spent = this.#counter.total(key, specOf(rule), now);
      if (spent >= rule.limit) {
        const technique = rule.technique ?? "sliding";
        return {
          ruleId: rule.id ?? `rule-${index}`,
          message: `Spend limit exceeded: rule '${rule.id ?? `rule-${index}`}' (cost limit ${rule.limit} per ${rule.window}s, ${technique}) for ${subject.provider} ${subject.model}`,
        };
      }
    }
    return undefined;
  }

  /** Charges a completed request's cost to every matching rule. */
  record(rules: readonly SpendRule[], subject: SpendSubject, cost: number, now: number): void {
    if (!(cost > 0)) return;
    for (const [index, rule] of rules.entries()) {
      const key = ruleKey(rule, index, subject);
      if (key !== undefined) this.#counter.add(key, specOf(rule), now, cost);
    }
  }
}

function specOf(rule: SpendRule) {
  return { technique: rule.technique ?? "sliding", windowMs: rule.window * 1000 } as const;
}

/** The counter key for a subject under a rule, or undefined when the rule does not apply. */
function ruleKey(rule: SpendRule, index: number, subject: SpendSubject): string | undefined {
  if (rule.enabled === false) return undefined;
  if (rule.provider && !rule.provider.values.includes(subject.provider)) return undefined;
  if (
    rule.model &&
    !rule.model.values.includes(subject.model) &&
    !rule.model.values.includes(`${subject.provider}/${subject.model}`)
  ) {
    return undefined;
  }
  const partitions: string[] = [];
  for (const [field, mode] of Object.entries(rule.metadata ?? {})) {
    const value = subject.metadata[field];
    if (mode.mode === "filter") {
      if (value === undefined || !mode.values.includes(String(value))) return undefined;
    } else {
      partitions.push(`${field}=${value === undefined ? "" : String(value)}`);
    }
  }
  return `${rule.id ?? `rule-${index}`}|${rule.limit}|${partitions.join("&")}`;
}
