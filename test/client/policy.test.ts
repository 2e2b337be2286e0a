/**
 * The client and a route's routing policy, against the emulator over loopback: a universal call
 * sends the chain the policy picks from the call's metadata (its own over its scorer's), a cost
 * budget spent by earlier answers sends later calls to its over chain, and the event records the
 * metadata sent and the decision; a dynamic call sends the metadata and lets the gateway decide,
 * with the same chain for the same metadata.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  complexityScorer,
  createGatewayClient,
  InvalidOptionsError,
  memoryRecorder,
} from "../../src/client/index.ts";
import { parseConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { BudgetLedger } from "../../src/routes/budget-ledger.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const config = parseConfig({
  accountId,
  gateways: [
    {
      id: "chat",
      authentication: true,
      byok: { providers: ["anthropic", "openai", "workers-ai"] },
      routes: {
        assistant: {
          steps: [{ provider: "openai", model: "gpt-4o-mini" }],
          chains: {
            frontier: [
              { provider: "anthropic", model: "claude-sonnet-4-5" },
              { provider: "openai", model: "gpt-4o" },
            ],
            economy: [{ provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" }],
          },
          policy: [
            { when: { plan: "free" }, use: "economy" },
            {
              when: { tier: "complex" },
              use: "frontier",
              // One mock Claude answer costs more than this: the budget lasts one call.
              budget: { per: "plan", cost: 0.0001, windowSeconds: 3600, over: "default" },
            },
          ],
        },
      },
    },
  ],
  models: {
    "anthropic/claude-sonnet-4-5": { input: 3, output: 15 },
    "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  },
});
const complex = [{ role: "user" as const, content: "Debug this step by step:\n```\nx\n```" }];
const simple = [{ role: "user" as const, content: "Hi there" }];

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ config, gatewayToken: "emulator-token" });
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(() => emulator.mocks!.clearAttempts());

function clientWith(options: { mode?: "universal" | "dynamic"; ledger?: BudgetLedger } = {}) {
  const recorder = memoryRecorder();
  const sent: { body: unknown; metadata: string | null }[] = [];
  const client = createGatewayClient({
    accountId,
    gatewayId: "chat",
    baseUrl: emulator.url,
    gatewayToken: "emulator-token",
    routes: config.gateways[0]!.routes,
    prices: config.models,
    recorder,
    scorer: complexityScorer,
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.ledger === undefined ? {} : { budgetLedger: options.ledger }),
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({ body: JSON.parse(String(init?.body)), metadata: headers.get("cf-aig-metadata") });
      return fetch(input, init);
    },
  });
  return { client, recorder, sent };
}

describe("a universal call on a policy route", () => {
  it("sends the chain its metadata picks, with the scorer's tier under the call's own entries", async () => {
    const { client, recorder, sent } = clientWith();
    const free = await client.chat({
      route: "assistant",
      metadata: { plan: "free" },
      messages: complex,
    });
    expect(free.served).toMatchObject({ index: 0, provider: "workers-ai" });
    expect(JSON.parse(sent[0]!.metadata!)).toEqual({
      route: "assistant",
      tier: "complex",
      plan: "free",
    });
    expect((sent[0]!.body as { provider: string }[]).map((step) => step.provider)).toEqual([
      "workers-ai",
    ]);
    // The call's own tier wins over the scorer's.
    const told = await client.chat({
      route: "assistant",
      metadata: { plan: "pro", tier: "simple" },
      messages: complex,
    });
    expect(told.served.provider).toBe("openai");
    expect(recorder.events.map((event) => [event.policy, event.metadata])).toEqual([
      [
        { chain: "economy", rule: 0 },
        { tier: "complex", plan: "free" },
      ],
      [
        { chain: "default", rule: null },
        { tier: "simple", plan: "pro" },
      ],
    ]);
  });

  it("sends calls to the over chain once answers have spent a cost budget", async () => {
    const { client, recorder } = clientWith();
    const providers: string[] = [];
    for (let call = 0; call < 3; call++) {
      const answer = await client.chat({
        route: "assistant",
        metadata: { plan: "pro" },
        messages: complex,
      });
      providers.push(String(answer.served.provider));
    }
    expect(providers).toEqual(["anthropic", "openai", "openai"]);
    expect(recorder.events.map((event) => event.policy)).toEqual([
      { chain: "frontier", rule: 1, budget: "within" },
      { chain: "default", rule: 1, budget: "over" },
      { chain: "default", rule: 1, budget: "over" },
    ]);
    // Another plan has its own budget; a client with a fresh ledger starts from nothing.
    const team = await client.chat({
      route: "assistant",
      metadata: { plan: "team" },
      messages: complex,
    });
    expect(team.served.provider).toBe("anthropic");
  });

  it("counts a step within the chosen chain: a fallback inside frontier is step 1", async () => {
    emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    try {
      const { client, recorder } = clientWith();
      const answer = await client.chat({
        route: "assistant",
        metadata: { plan: "pro" },
        messages: complex,
      });
      expect(answer.served).toMatchObject({ index: 1, provider: "openai", model: "gpt-4o" });
      expect(recorder.events[0]).toMatchObject({
        step: 1,
        policy: { chain: "frontier", budget: "within" },
      });
    } finally {
      emulator.mocks!.setFaults({ rules: [] });
    }
  });

  it("streams the chosen chain too, and charges the streamed answer to the budget", async () => {
    const { client, recorder, sent } = clientWith();
    const first = client.stream({
      route: "assistant",
      metadata: { plan: "stream" },
      messages: complex,
    });
    for await (const _delta of first) {
      // drain
    }
    expect((await first.result).served.provider).toBe("anthropic");
    expect((sent[0]!.body as { provider: string }[]).map((step) => step.provider)).toEqual([
      "anthropic",
      "openai",
    ]);
    const second = await client.chat({
      route: "assistant",
      metadata: { plan: "stream" },
      messages: complex,
    });
    expect(second.served.provider).toBe("openai");
    expect(recorder.events.map((event) => event.policy?.budget)).toEqual(["within", "over"]);
  });

  it("shares one ledger between clients that are given it", async () => {
    const ledger = new BudgetLedger();
    await clientWith({ ledger }).client.chat({
      route: "assistant",
      metadata: { plan: "shared" },
      messages: complex,
    });
    const second = await clientWith({ ledger }).client.chat({
      route: "assistant",
      metadata: { plan: "shared" },
      messages: complex,
    });
    expect(second.served.provider).toBe("openai");
  });
});

describe("a dynamic call on a policy route", () => {
  it("sends the metadata and lets the gateway pick the same chain", async () => {
    const { client, recorder, sent } = clientWith({ mode: "dynamic" });
    const free = await client.chat({
      route: "assistant",
      metadata: { plan: "free" },
      messages: simple,
    });
    expect(free.served).toMatchObject({
      provider: "workers-ai",
      model: "@cf/meta/llama-3.1-8b-instruct",
    });
    expect(JSON.parse(sent[0]!.metadata!)).toMatchObject({ plan: "free", tier: "simple" });
    expect((sent[0]!.body as { model: string }).model).toBe("dynamic/assistant");
    // The gateway decided: the event has no policy decision of the client's.
    expect(recorder.events[0]!.policy).toBeUndefined();
    expect(recorder.events[0]!.metadata).toMatchObject({ plan: "free", tier: "simple" });
  });
});

describe("createGatewayClient and a hand-written policy", () => {
  it("refuses a policy naming a chain the route lacks", () => {
    expect(() =>
      createGatewayClient({
        accountId,
        gatewayId: "chat",
        routes: {
          odd: {
            steps: [{ provider: "openai", model: "gpt-4o-mini" }],
            policy: [{ when: { plan: "free" }, use: "cheap" }],
          },
        },
      }),
    ).toThrow(InvalidOptionsError);
  });

  it("refuses a chain step with an unknown provider, naming the route, chain and step", () => {
    expect(() =>
      createGatewayClient({
        accountId,
        gatewayId: "chat",
        routes: {
          odd: {
            steps: [{ provider: "openai", model: "gpt-4o-mini" }],
            chains: { cheap: [{ provider: "opnai", model: "gpt-4o-mini" }] },
            policy: [{ when: { plan: "free" }, use: "cheap" }],
          },
        },
      }),
    ).toThrow(/route "odd" chain "cheap" step 0: unknown provider "opnai" \(known: openai, /);
  });
});
