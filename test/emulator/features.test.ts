import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { accountId, emulatorWith, postJson, testConfig, token, universalBody } from "./helpers.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const config = testConfig([
  {
    id: "budget",
    spendLimits: [
      {
        id: "openai-budget",
        limit: 1,
        windowSeconds: 60,
        technique: "fixed",
        providers: ["openai"],
      },
    ],
    routes: {
      default: [{ provider: "openai", model: "gpt-4o-mini" }],
      guarded: [
        { provider: "openai", model: "gpt-4o-mini" },
        { provider: "anthropic", model: "claude-sonnet-4-5" },
      ],
    },
  },
  {
    id: "quiet",
    logs: { collect: false },
    routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
  },
]);

async function send(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await postJson(url, body, headers);
  const text = await response.text();
  return { response, text };
}

describe("gateway features", () => {
  it("keeps at most 5 metadata entries, echoes the event id and logs a custom cost", async () => {
    emulator = (await emulatorWith({ config })).emulator;
    const metadata = { a: 1, b: "two", c: true, d: null, e: 5, f: "dropped", g: "dropped too" };
    const { response } = await send(emulator.gatewayUrl("open"), universalBody(config, "open"), {
      "cf-aig-metadata": JSON.stringify(metadata),
      "cf-aig-event-id": "order-42",
      "cf-aig-custom-cost": JSON.stringify({ per_token_in: 0.001, per_token_out: 0.002 }),
    });
    expect(response.headers.get("cf-aig-event-id")).toBe("order-42");
    const [log] = emulator.logs("open");
    expect(JSON.parse(log!.metadata!)).toEqual({ a: 1, b: "two", c: true, d: null, e: 5 });
    expect(log!.event_id).toBe("order-42");
    expect(log!.custom_cost).toBe(true);
    expect(log!.cost).toBeCloseTo(log!.tokens_in! * 0.001 + log!.tokens_out! * 0.002, 10);
  });

  it("refuses over a spend limit with 429 (2041) and falls back to a step the rule does not cover", async () => {
    const started = await emulatorWith({ config });
    emulator = started.emulator;
    const url = emulator.gatewayUrl("budget");
    const cost = { "cf-aig-custom-cost": JSON.stringify({ total_cost: 0.6 }) };
    const single = universalBody(config, "budget");
    expect((await send(url, single, cost)).response.status).toBe(200);
    expect((await send(url, single, cost)).response.status).toBe(200);
    const refused = await send(url, single, cost);
    expect(refused.response.status).toBe(429);
    expect(JSON.parse(refused.text)).toMatchObject({
      error: [
        {
          code: 2041,
          message:
            "Spend limit exceeded: rule 'openai-budget' (cost limit 1 per 60s, fixed) for openai gpt-4o-mini",
        },
      ],
    });
    const guarded = await send(url, universalBody(config, "budget", "guarded"), cost);
    expect(guarded.response.status).toBe(200);
    expect(guarded.response.headers.get("cf-aig-step")).toBe("1");
    expect(emulator.mocks!.attempts.map((attempt) => attempt.provider)).toEqual([
      "openai",
      "openai",
      "anthropic",
    ]);
    started.clock.advance(60_000);
    expect((await send(url, single, cost)).response.status).toBe(200);
  });

  it("keeps one budget per metadata value for a config rule split by it (spend-limits.mdx)", async () => {
    // features/spend-limits.mdx: "if you pass in `agent_id`, splitting by `agent_id` gives every
    // agent its own budget."
    const split = testConfig([
      {
        id: "agents",
        spendLimits: [
          { id: "per-agent", limit: 1, windowSeconds: 60, metadata: { agent_id: "split" } },
        ],
        routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
      },
    ]);
    ({ emulator } = await emulatorWith({ config: split }));
    expect(emulator.state.gateways.get("agents")?.settings.spend_limits?.rules[0]).toMatchObject({
      metadata: { agent_id: { mode: "partition" } },
    });
    const url = emulator.gatewayUrl("agents");
    const as = (agent: string) => ({
      "cf-aig-custom-cost": JSON.stringify({ total_cost: 1 }),
      "cf-aig-metadata": JSON.stringify({ agent_id: agent }),
    });
    const body = universalBody(split, "agents");
    expect((await send(url, body, as("agent_1"))).response.status).toBe(200);
    expect((await send(url, body, as("agent_1"))).response.status).toBe(429);
    expect((await send(url, body, as("agent_2"))).response.status).toBe(200);
  });

  it("does not log when the gateway or the request says so", async () => {
    emulator = (await emulatorWith({ config })).emulator;
    await send(emulator.gatewayUrl("quiet"), universalBody(config, "quiet"));
    expect(emulator.logs("quiet")).toEqual([]);
    await send(emulator.gatewayUrl("quiet"), universalBody(config, "quiet"), {
      "cf-aig-collect-log": "true",
    });
    expect(emulator.logs("quiet")).toHaveLength(1);
    await send(emulator.gatewayUrl("open"), universalBody(config, "open"), {
      "cf-aig-collect-log": "false",
    });
    expect(emulator.logs("open")).toEqual([]);
  });

  it("creates the default gateway on the first authenticated request only", async () => {
    emulator = (await emulatorWith({ config })).emulator;
    const body = universalBody(config, "quiet");
    const anonymous = await fetch(`${emulator.url}/v1/${accountId}/default`, {
      method: "POST",
      body: JSON.stringify(body),
    });
    expect(anonymous.status).toBe(400);
    await anonymous.text();
    const { response } = await send(`${emulator.url}/v1/${accountId}/default`, body, {
      "cf-aig-authorization": `Bearer ${token}`,
    });
    expect(response.status).toBe(200);
    expect(emulator.state.gateways.get("default")?.settings).toMatchObject({
      authentication: true,
      collect_logs: true,
      cache_ttl: 0,
      is_default: true,
    });
  });
});
