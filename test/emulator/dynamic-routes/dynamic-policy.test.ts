/**
 * The property issue #14 asks for: for generated routing policies, the chain the client's
 * evaluator picks for a universal call (`choosePolicyChain`) is the chain the emulator walks for
 * `dynamic/<route>` with the same metadata — rule after rule, through count and cost budgets that
 * fill up and slide, and percentage splits fed the same draw. Each generated policy is compiled
 * (`compileDynamicRoute`), created in the emulator through its REST API as Pulumi's provider
 * would, and called request by request; every chain starts with its own model, so the answer's
 * `cf-aig-provider` / `cf-aig-model` name the chain the emulator took.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type PolicyRule,
  parseConfig,
  type RouteConfig,
  type StepwiseConfig,
} from "../../../src/config/index.ts";
import type { Emulator } from "../../../src/emulator/index.ts";
import { computeCost } from "../../../src/providers/index.ts";
import { BudgetLedger, choosePolicyChain, compileDynamicRoute } from "../../../src/routes/index.ts";
import { accountId, emulatorWith, type fakeClock, postJson } from "../helpers.ts";

/** Each chain's first model is its own, so the served model names the chain. */
const chainSteps: Readonly<Record<string, { provider: string; model: string }[]>> = {
  default: [{ provider: "openai", model: "default-first" }],
  alpha: [
    { provider: "anthropic", model: "alpha-first" },
    { provider: "openai", model: "alpha-second" },
  ],
  beta: [{ provider: "groq", model: "beta-first" }],
  gamma: [{ provider: "mistral", model: "gamma-first" }],
};
const chainNames = Object.keys(chainSteps);
const named = chainNames.filter((name) => name !== "default");
const metadataValues: Readonly<Record<string, readonly (string | number | boolean)[]>> = {
  plan: ["free", "pro", "team"],
  tier: ["simple", "moderate", "complex"],
  seats: [1, 5, true],
};
const keys = Object.keys(metadataValues);
const prices = Object.fromEntries(
  Object.values(chainSteps)
    .flat()
    .map((step) => [`${step.provider}/${step.model}`, { input: 1, output: 1 }]),
);

const value = (key: string) => fc.constantFrom(...metadataValues[key]!);
const test = (key: string) =>
  fc.oneof(
    value(key),
    fc.uniqueArray(value(key), { minLength: 1, maxLength: 2 }),
    fc.record({
      not: fc.oneof(value(key), fc.uniqueArray(value(key), { minLength: 1, maxLength: 2 })),
    }),
  );
const when = fc
  .subarray(keys, { minLength: 1, maxLength: 2 })
  .chain((picked) => fc.record(Object.fromEntries(picked.map((key) => [key, test(key)]))));
const split = fc
  .uniqueArray(fc.constantFrom(...chainNames), { minLength: 1, maxLength: 2 })
  .chain((chains) =>
    fc
      .uniqueArray(fc.integer({ min: 1, max: 70 }), {
        minLength: chains.length,
        maxLength: chains.length,
      })
      .map((shares) => Object.fromEntries(chains.map((chain, index) => [chain, shares[index]!]))),
  );
const budget = fc.record({
  per: fc.constantFrom(...keys),
  amount: fc.oneof(
    fc.record({ requests: fc.integer({ min: 1, max: 3 }) }),
    // A mock answer costs about 3e-5 USD at the test prices: over after one to three answers.
    fc.record({ cost: fc.constantFrom(0.00002, 0.00005, 0.0001) }),
  ),
  windowSeconds: fc.constantFrom(30, 60),
  over: fc.constantFrom(...chainNames),
});
const rule = fc.record(
  {
    when,
    use: fc.constantFrom(...chainNames),
    split,
    budget,
  },
  { requiredKeys: ["when"] },
);

/** A policy Stepwise accepts: rules shaped to pass the config's checks. */
const policy = fc
  .tuple(fc.array(rule, { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([drafts, lastCatchesAll]): PolicyRule[] =>
    drafts.map((draft, index) => {
      const shaped: PolicyRule = {};
      if (!(lastCatchesAll && index === drafts.length - 1)) shaped.when = draft.when;
      if (draft.use !== undefined) shaped.use = draft.use;
      if (draft.split !== undefined) {
        const total = Object.values(draft.split).reduce((sum, share) => sum + share, 0);
        if (total <= 100) shaped.split = draft.split;
        if (total === 100) delete shaped.use;
      }
      if (draft.budget !== undefined) {
        const target = shaped.use ?? "default";
        const over =
          draft.budget.over === target && shaped.split === undefined
            ? chainNames.find((name) => name !== target)!
            : draft.budget.over;
        shaped.budget = {
          per: draft.budget.per,
          ...draft.budget.amount,
          windowSeconds: draft.budget.windowSeconds,
          over,
        };
      }
      return shaped;
    }),
  );

const request = fc.record({
  metadata: fc
    .subarray(keys)
    .chain((picked) => fc.record(Object.fromEntries(picked.map((key) => [key, value(key)])))),
  draw: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  // Mostly within a budget's window, sometimes past it (windows are 30 or 60 s).
  advanceMs: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 5_000 }), weight: 4 },
    { arbitrary: fc.integer({ min: 5_000, max: 40_000 }), weight: 1 },
  ),
});

/** The route of a policy, with exactly the chains it names. */
function routeOf(rules: PolicyRule[]): RouteConfig {
  const used = new Set<string>();
  for (const draft of rules) {
    used.add(draft.use ?? "default");
    for (const chain of Object.keys(draft.split ?? {})) used.add(chain);
    if (draft.budget) used.add(draft.budget.over);
  }
  const chains = Object.fromEntries(
    named.filter((name) => used.has(name)).map((name) => [name, chainSteps[name]!]),
  );
  return {
    steps: chainSteps.default!,
    ...(Object.keys(chains).length > 0 ? { chains } : {}),
    policy: rules,
  };
}

/** The config the route lives in: its check is the one `stepwise validate` runs. */
function configWith(route: RouteConfig): StepwiseConfig {
  return parseConfig({
    accountId,
    gateways: [
      {
        id: "policy",
        authentication: true,
        byok: { providers: ["openai", "anthropic", "groq", "mistral"] },
        routes: { generated: route },
      },
    ],
    models: prices,
  });
}

const chainOfFirstModel = new Map(
  Object.entries(chainSteps).map(([name, steps]) => [
    `${steps[0]!.provider}/${steps[0]!.model}`,
    name,
  ]),
);

let emulator: Emulator;
let clock: ReturnType<typeof fakeClock>;
let draw = 0;
let routeCount = 0;

beforeAll(async () => {
  const started = await emulatorWith({
    config: configWith({ steps: chainSteps.default! }),
    random: () => draw,
  });
  emulator = started.emulator;
  clock = started.clock;
});

afterAll(async () => {
  await emulator?.close();
});

async function createRoute(route: RouteConfig): Promise<string> {
  const name = `generated-${++routeCount}`;
  const response = await fetch(
    `${emulator.restUrl}/accounts/${accountId}/ai-gateway/gateways/policy/routes`,
    {
      method: "POST",
      headers: {
        authorization: `Bearer ${emulator.gatewayToken}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ name, elements: compileDynamicRoute(route) }),
    },
  );
  expect(response.status, await response.clone().text()).toBe(200);
  await response.text();
  return name;
}

describe("routing policy: the client's universal chain is the emulator's dynamic path", () => {
  it("holds for generated policies, request by request", async () => {
    await fc.assert(
      fc.asyncProperty(
        policy,
        fc.array(request, { minLength: 4, maxLength: 10 }),
        async (rules, requests) => {
          const route = configWith(routeOf(rules)).gateways[0]!.routes.generated!;
          const name = await createRoute(route);
          const ledger = new BudgetLedger();
          for (const { metadata, draw: nextDraw, advanceMs } of requests) {
            clock.advance(advanceMs);
            draw = nextDraw;
            const decision = choosePolicyChain(route, {
              metadata,
              random: () => nextDraw,
              ledger,
              now: clock.now(),
            });
            const response = await postJson(
              `${emulator.compatUrl("policy")}/chat/completions`,
              { model: `dynamic/${name}`, messages: [{ role: "user", content: "Which chain?" }] },
              { "cf-aig-metadata": JSON.stringify(metadata) },
            );
            const body = (await response.json()) as {
              usage: { prompt_tokens: number; completion_tokens: number };
            };
            expect(response.status).toBe(200);
            const provider = response.headers.get("cf-aig-provider")!;
            const model = response.headers.get("cf-aig-model")!;
            expect(
              chainOfFirstModel.get(`${provider}/${model}`),
              JSON.stringify({ metadata, decision }),
            ).toBe(decision.chain);
            // The client charges a cost budget with the answer's cost, as the gateway does.
            if (decision.costBudget !== undefined) {
              const cost = computeCost(prices, provider, model, {
                tokensIn: body.usage.prompt_tokens,
                tokensOut: body.usage.completion_tokens,
              })!;
              ledger.add(decision.costBudget.key, decision.costBudget.windowMs, clock.now(), cost);
            }
          }
        },
      ),
      { numRuns: 50 },
    );
  }, 120_000);
});
