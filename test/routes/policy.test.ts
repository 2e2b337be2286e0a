/**
 * The routing policy as the client evaluates it for universal calls: the first matching rule
 * decides; a budget over its limit sends to `budget.over`; a split draws; a missing metadata key
 * equals nothing and differs from everything; budgets count per metadata value in a sliding
 * window.
 */
import { describe, expect, it } from "vitest";
import {
  defaultChainName as configDefaultChain,
  parseConfig,
  type RouteConfig,
} from "../../src/config/index.ts";
import {
  BudgetLedger,
  chargeBudget,
  choosePolicyChain,
  complexityScorer,
  defaultChainName,
  planPolicyCall,
} from "../../src/routes/index.ts";

function routeOf(route: unknown): RouteConfig {
  return parseConfig({
    accountId: "0123456789abcdef0123456789abcdef",
    gateways: [{ id: "chat", routes: { assistant: route } }],
    keys: { providers: ["openai", "anthropic", "groq"] },
  }).gateways[0]!.routes.assistant!;
}

const tiered = routeOf({
  steps: [{ provider: "openai", model: "gpt-4o-mini" }],
  chains: {
    frontier: [{ provider: "anthropic", model: "claude-sonnet-4-5" }],
    economy: [{ provider: "groq", model: "llama-3.1-8b-instant" }],
    candidate: [{ provider: "groq", model: "llama-3.3-70b-versatile" }],
  },
  policy: [
    { when: { plan: "free", tier: ["moderate", "complex"] }, use: "default" },
    { when: { plan: "free" }, use: "economy" },
    {
      when: { plan: "pro", tier: "complex" },
      use: "frontier",
      budget: { per: "plan", requests: 2, windowSeconds: 60, over: "default" },
    },
    { when: { plan: { not: "pro" } }, use: "economy" },
    { split: { candidate: 10 } },
  ],
});

describe("choosePolicyChain", () => {
  it("takes the first rule whose when holds", () => {
    const pick = (metadata: Record<string, string>) =>
      choosePolicyChain(tiered, { metadata, random: () => 0.5 });
    expect(pick({ plan: "free", tier: "complex" })).toMatchObject({ chain: "default", rule: 0 });
    expect(pick({ plan: "free", tier: "simple" })).toMatchObject({ chain: "economy", rule: 1 });
    expect(pick({ plan: "pro", tier: "simple" })).toMatchObject({ chain: "default", rule: 4 });
    expect(pick({ plan: "pro", tier: "complex" }).steps).toEqual([
      { provider: "anthropic", model: "claude-sonnet-4-5" },
    ]);
  });

  it("reads a missing key as equal to nothing and different from everything", () => {
    // No plan: rules 0–2 need one; rule 3's { not: pro } holds.
    expect(choosePolicyChain(tiered, { metadata: { tier: "complex" } })).toMatchObject({
      chain: "economy",
      rule: 3,
    });
  });

  it("splits by the draw: the first 10 % to the candidate, the rest to use", () => {
    const at = (draw: number) =>
      choosePolicyChain(tiered, { metadata: { plan: "pro" }, random: () => draw }).chain;
    expect([0, 0.0999, 0.1, 0.99].map(at)).toEqual([
      "candidate",
      "candidate",
      "default",
      "default",
    ]);
  });

  it("draws only when a split is reached", () => {
    let draws = 0;
    const random = () => {
      draws += 1;
      return 0;
    };
    choosePolicyChain(tiered, { metadata: { plan: "free" }, random });
    expect(draws).toBe(0);
  });

  it("sends requests over a count budget to budget.over, per metadata value, until the window slides", () => {
    const ledger = new BudgetLedger();
    const metadata = { plan: "pro", tier: "complex" };
    const at = (now: number, plan = "pro") =>
      choosePolicyChain(tiered, { metadata: { ...metadata, plan }, ledger, now, scope: "a" });
    expect(at(0)).toMatchObject({ chain: "frontier", budget: "within" });
    expect(at(1000)).toMatchObject({ chain: "frontier", budget: "within" });
    expect(at(2000)).toMatchObject({ chain: "default", budget: "over", rule: 2 });
    // The budget is per plan: another value has its own.
    expect(ledger.total("a:rule-2:pro", 60_000, 2000)).toBe(2);
    // Sliding: at 60 000 ms the request made at 0 has left the window.
    expect(at(60_000)).toMatchObject({ chain: "frontier", budget: "within" });
  });

  it("charges cost budgets with the answer's cost and goes over once they are spent", () => {
    const route = routeOf({
      steps: [{ provider: "openai", model: "gpt-4o-mini" }],
      chains: { frontier: [{ provider: "anthropic", model: "claude-sonnet-4-5" }] },
      policy: [
        {
          use: "frontier",
          budget: { per: "team", cost: 0.01, windowSeconds: 3600, over: "default" },
        },
      ],
    });
    const ledger = new BudgetLedger();
    const first = choosePolicyChain(route, { metadata: { team: "ml" }, ledger, now: 0 });
    expect(first).toMatchObject({ chain: "frontier", budget: "within" });
    expect(first.costBudget).toEqual({ key: ":rule-0:ml", windowMs: 3_600_000 });
    // Nothing is spent until the answer's cost is charged.
    expect(choosePolicyChain(route, { metadata: { team: "ml" }, ledger, now: 1 }).chain).toBe(
      "frontier",
    );
    ledger.add(first.costBudget!.key, first.costBudget!.windowMs, 2, 0.01);
    const over = choosePolicyChain(route, { metadata: { team: "ml" }, ledger, now: 3 });
    expect(over).toMatchObject({ chain: "default", budget: "over" });
    expect(over.costBudget).toBeUndefined();
  });

  it("never finds a budget over without a ledger", () => {
    const metadata = { plan: "pro", tier: "complex" };
    for (let call = 0; call < 5; call++) {
      expect(choosePolicyChain(tiered, { metadata }).chain).toBe("frontier");
    }
  });

  it("names the route's steps as the config does", () => {
    // Two constants so that the client's bundle holds no config module (and no zod).
    expect(defaultChainName).toBe(configDefaultChain);
  });

  it("takes default for a route without a policy", () => {
    const route = routeOf([{ provider: "openai", model: "gpt-4o-mini" }]);
    expect(choosePolicyChain(route, { metadata: { plan: "free" } })).toEqual({
      chain: "default",
      steps: route.steps,
      rule: null,
    });
  });
});

describe("planPolicyCall: what the client does with a policy for one call", () => {
  const request = { messages: [{ role: "user" as const, content: "Debug this ```x```" }] };

  it("sends the scorer's metadata under the call's own, and picks the chain from both", () => {
    const call = planPolicyCall({
      route: tiered,
      request,
      metadata: { plan: "pro" },
      scorer: complexityScorer,
      evaluate: true,
      now: 0,
    });
    expect(call.metadata).toEqual({ tier: "complex", plan: "pro" });
    expect(call.decision).toMatchObject({ chain: "frontier", rule: 2, budget: "within" });
    // The call's own entry wins over the scorer's.
    const told = planPolicyCall({
      route: tiered,
      request,
      metadata: { plan: "pro", tier: "simple" },
      scorer: complexityScorer,
      evaluate: true,
      random: () => 0.5,
      now: 0,
    });
    expect(told.metadata).toEqual({ tier: "simple", plan: "pro" });
    expect(told.decision?.chain).toBe("default");
  });

  it("leaves the chain to the gateway for dynamic calls, but still sends the metadata", () => {
    const call = planPolicyCall({
      route: tiered,
      request,
      scorer: complexityScorer,
      evaluate: false,
      now: 0,
    });
    expect(call).toEqual({ metadata: { tier: "complex" }, decision: undefined });
  });

  it("charges a cost budget only with a cost, and only the budget the call passed", () => {
    const route = routeOf({
      steps: [{ provider: "openai", model: "gpt-4o-mini" }],
      chains: { frontier: [{ provider: "anthropic", model: "claude-sonnet-4-5" }] },
      policy: [
        { use: "frontier", budget: { per: "plan", cost: 1, windowSeconds: 60, over: "default" } },
      ],
    });
    const ledger = new BudgetLedger();
    const call = planPolicyCall({ route, request, evaluate: true, ledger, scope: "gw/r", now: 0 });
    chargeBudget(ledger, call.decision, null, 1);
    chargeBudget(ledger, call.decision, 0.25, 2);
    chargeBudget(ledger, undefined, 5, 3);
    expect(ledger.total("gw/r:rule-0:", 60_000, 3)).toBe(0.25);
  });
});

describe("BudgetLedger", () => {
  it("keeps a bounded number of keys, dropping the oldest", () => {
    const ledger = new BudgetLedger({ maxKeys: 2 });
    ledger.add("a", 1000, 0);
    ledger.add("b", 1000, 0);
    ledger.add("c", 1000, 0);
    expect([ledger.total("a", 1000, 0), ledger.total("b", 1000, 0)]).toEqual([0, 1]);
  });

  it("merges the oldest entries past its per-key bound, over-counting rather than forgetting", () => {
    const ledger = new BudgetLedger({ maxEntriesPerKey: 3 });
    for (let time = 0; time < 5; time++) ledger.add("a", 10_000, time, 1);
    expect(ledger.total("a", 10_000, 5)).toBe(5);
  });
});
