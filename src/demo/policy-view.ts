/**
 * @module
 * What the demo shows of a route's routing policy: its chains and rules before the run; during it,
 * the chains calls take (from the events the client records) and the moment a budget is first
 * spent; and the traffic it sends — calls of both plans (`plan` in the call's metadata, as an app
 * would send it) with questions of three complexities, which the client's complexity scorer tiers.
 */
import pc from "picocolors";
import type { CallEvent } from "../client/index.ts";
import type { RouteConfig } from "../config/index.ts";
import { defaultChainName, describeBudget, describeRule } from "../routes/index.ts";

/** One demo call: its question and the metadata the app sends with it. */
export interface DemoCall {
  readonly question: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/**
 * The demo's call number `turn` on its route. On a policy route the questions cycle through
 * simple, moderate and complex (the scorer's tiers) and the plans through free and pro, two in
 * five free (5 and 3 share no factor, so every plan meets every tier); one question in ten repeats,
 * so the gateway cache has something to hit.
 */
export function demoCall(turn: number, withPolicy: boolean): DemoCall {
  const metadata = withPolicy ? { metadata: { plan: turn % 5 < 2 ? "free" : "pro" } } : {};
  if (turn % 10 === 9) return { question: "What is AI Gateway?", ...metadata };
  if (!withPolicy) return { question: `Summarise ticket #${turn} in one sentence.` };
  const questions = [
    `Summarise request #${turn} in one sentence.`,
    `Compare the two fixes proposed in request #${turn}. Which one is safer?`,
    `Debug the failing job of request #${turn} step by step:\n\`\`\`\nTypeError: cannot read properties of undefined (reading 'id')\n    at handler (job.ts:42)\n\`\`\``,
  ];
  return { question: questions[turn % 3]!, ...metadata };
}

/** The policy's live picture: chains taken and budget hits, from the recorded events. */
export class PolicyView {
  readonly #route: RouteConfig;
  readonly #name: string;
  readonly #chains = new Map<string, number>();
  #overBudget = 0;
  #calls = 0;

  constructor(name: string, route: RouteConfig) {
    this.#name = name;
    this.#route = route;
  }

  /** The route's chains and rules, for before the run. */
  describe(): string[] {
    const chains = Object.entries({
      [defaultChainName]: this.#route.steps,
      ...(this.#route.chains ?? {}),
    }).map(
      ([name, steps]) =>
        `  chain ${pc.cyan(name)}: ${steps.map((step) => `${step.provider}/${step.model}`).join(" → ")}`,
    );
    const rules = (this.#route.policy ?? []).map(
      (rule, index) => `  rule ${index}: ${describeRule(rule)}`,
    );
    return [
      `route ${pc.cyan(this.#name)}: a routing policy (plan from the app, tier from the client's complexity scorer)`,
      ...chains,
      ...rules,
      pc.dim("  no rule matches → default"),
    ];
  }

  /** Counts one call's event; returns a line to print when it is the first one over a budget. */
  observe(event: CallEvent): string | undefined {
    const policy = event.policy;
    if (policy === undefined) return undefined;
    this.#calls += 1;
    this.#chains.set(policy.chain, (this.#chains.get(policy.chain) ?? 0) + 1);
    if (policy.budget !== "over") return undefined;
    this.#overBudget += 1;
    if (this.#overBudget > 1 || policy.rule === null) return undefined;
    const rule = this.#route.policy?.[policy.rule];
    if (rule?.budget === undefined) return undefined;
    return pc.magenta(
      `budget of rule ${policy.rule} spent (${describeBudget(rule.budget)}) after ${this.#calls} calls on ${this.#name}: its calls now take ${rule.budget.over}`,
    );
  }

  /** `chains default 41% · economy 28% · … · over budget 12`, or empty before any policy call. */
  shares(): string {
    if (this.#calls === 0) return "";
    const chains = [...this.#chains.entries()]
      .sort(([, a], [, b]) => b - a)
      .map(([name, count]) => `${name} ${((count / this.#calls) * 100).toFixed(0)}%`);
    return `chains ${chains.join(" · ")} · over budget ${this.#overBudget}`;
  }
}
