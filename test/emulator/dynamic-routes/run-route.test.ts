import Cloudflare from "cloudflare";
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { accountId, emulatorWith, postJson, testConfig } from "../helpers.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const config = testConfig([
  {
    id: "chat",
    authentication: true,
    // Dynamic routes call providers with keys stored in the gateway (BYOK), as on Cloudflare.
    byok: { providers: ["anthropic", "openai", "workers-ai", "groq", "mistral"] },
    routes: {
      default: [
        { provider: "anthropic", model: "claude-sonnet-4-5", retries: 1 },
        { provider: "openai", model: "gpt-4o-mini" },
        { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" },
      ],
    },
  },
]);

function ask(model: string, headers: Record<string, string> = {}) {
  return postJson(
    `${emulator!.compatUrl("chat")}/chat/completions`,
    { model, messages: [{ role: "user", content: "Hello there" }] },
    { authorization: "Bearer provider-key", ...headers },
  );
}

const model = (id: string, provider: string, name: string, fallback = "end") => ({
  id,
  type: "model" as const,
  properties: { provider, model: name, retries: 0, timeout: 5000 },
  outputs: { success: { elementId: "end" }, fallback: { elementId: fallback } },
});
const start = (next: string) => ({
  id: "start",
  type: "start" as const,
  outputs: { next: { elementId: next } },
});
const end = { id: "end", type: "end" as const, outputs: {} };

describe("dynamic routes", () => {
  it("falls back through a config route in its compiled order", async () => {
    const { emulator: started, clock } = await emulatorWith({
      config,
      faults: {
        rules: [
          { provider: "anthropic", kind: "overloaded" },
          { provider: "openai", kind: "unavailable" },
        ],
      },
    });
    emulator = started;
    const response = await ask("dynamic/default");
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-provider")).toBe("workers-ai");
    expect(response.headers.get("cf-aig-model")).toBe("@cf/meta/llama-3.1-8b-instruct");
    expect(response.headers.get("cf-aig-step")).toBe("2");
    const body = (await response.json()) as {
      object: string;
      choices: { message: { content: string } }[];
      usage: { completion_tokens: number };
    };
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0]!.message.content).toContain("Mock answer from workers-ai");
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
    // Model node retries (retries: 1 → 2 attempts) come before its fallback.
    expect(emulator.mocks!.attempts.map((attempt) => attempt.provider)).toEqual([
      "anthropic",
      "anthropic",
      "openai",
      "workers-ai",
    ]);
    expect(clock.sleeps).toEqual([0]);
    expect(
      emulator.logs("chat").map((log) => [log.step, log.provider, log.success, log.request_type]),
    ).toEqual([
      [0, "anthropic", false, "dynamic"],
      [1, "openai", false, "dynamic"],
      [2, "workers-ai", true, "dynamic"],
    ]);
  });

  it("returns the last model's error, in OpenAI's shape, when every model fails", async () => {
    const { emulator: started } = await emulatorWith({
      config,
      faults: { rules: [{ kind: "unavailable" }] },
    });
    emulator = started;
    const response = await ask("dynamic/default");
    expect(response.status).toBe(503);
    expect(response.headers.get("cf-aig-provider")).toBe("workers-ai");
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain("unavailable");
  });

  it("runs routes created, versioned and deployed through the SDK", async () => {
    const { emulator: started } = await emulatorWith({ config });
    emulator = started;
    const client = new Cloudflare({
      apiToken: emulator.gatewayToken,
      baseURL: emulator.restUrl,
      maxRetries: 0,
    });
    const created = await client.aiGateway.dynamicRouting.create("chat", {
      account_id: accountId,
      name: "by-plan",
      elements: [
        start("plan"),
        {
          id: "plan",
          type: "conditional",
          properties: { conditions: { "metadata.plan": { $eq: "free" } } },
          outputs: { true: { elementId: "cheap" }, false: { elementId: "best" } },
        },
        model("cheap", "groq", "llama-3.1-8b-instant"),
        model("best", "anthropic", "claude-sonnet-4-5"),
        end,
      ],
    });
    expect(created).toMatchObject({ name: "by-plan", gateway_id: "chat" });
    const free = await ask("dynamic/by-plan", { "cf-aig-metadata": '{"plan":"free"}' });
    expect(free.status).toBe(200);
    expect(free.headers.get("cf-aig-provider")).toBe("groq");
    await free.text();
    const paid = await ask("dynamic/by-plan", { "cf-aig-metadata": '{"plan":"pro"}' });
    expect(paid.headers.get("cf-aig-provider")).toBe("anthropic");
    await paid.text();

    const listed = await client.aiGateway.dynamicRouting.list("chat", { account_id: accountId });
    expect(listed.data.routes.map((route) => route.name).sort()).toEqual(["by-plan", "default"]);

    const version = await client.aiGateway.dynamicRouting.createVersion(created.id, {
      account_id: accountId,
      gateway_id: "chat",
      elements: [start("only"), model("only", "mistral", "mistral-large-latest"), end],
    });
    const stillOld = await ask("dynamic/by-plan", { "cf-aig-metadata": '{"plan":"free"}' });
    expect(stillOld.headers.get("cf-aig-provider")).toBe("groq");
    await stillOld.text();
    const newVersionId = (version as unknown as { version_id: string }).version_id;
    await client.aiGateway.dynamicRouting.createDeployment(created.id, {
      account_id: accountId,
      gateway_id: "chat",
      version_id: newVersionId,
    });
    const deployed = await ask("dynamic/by-plan");
    expect(deployed.status).toBe(200);
    expect(deployed.headers.get("cf-aig-provider")).toBe("mistral");
    await deployed.text();
    // Roll back: deploy the first version again.
    await client.aiGateway.dynamicRouting.createDeployment(created.id, {
      account_id: accountId,
      gateway_id: "chat",
      version_id: created.version.version_id,
    });
    const rolledBack = await ask("dynamic/by-plan", { "cf-aig-metadata": '{"plan":"free"}' });
    expect(rolledBack.headers.get("cf-aig-provider")).toBe("groq");
    await rolledBack.text();
    const versions = await client.aiGateway.dynamicRouting.listVersions(created.id, {
      account_id: accountId,
      gateway_id: "chat",
    });
    expect(versions.data.versions.map((entry) => entry.active)).toEqual(["true", "false"]);
    const deployments = await client.aiGateway.dynamicRouting.listDeployments(created.id, {
      account_id: accountId,
      gateway_id: "chat",
    });
    expect(deployments.data.deployments).toHaveLength(3);
  });

  it("splits by percentage with the injected random, and limits per metadata key", async () => {
    let draw = 0.2;
    const { emulator: started } = await emulatorWith({ config, random: () => draw });
    emulator = started;
    const client = new Cloudflare({
      apiToken: emulator.gatewayToken,
      baseURL: emulator.restUrl,
      maxRetries: 0,
    });
    await client.aiGateway.dynamicRouting.create("chat", {
      account_id: accountId,
      name: "split",
      elements: [
        start("split"),
        {
          id: "split",
          type: "percentage",
          outputs: { "30%": { elementId: "a" }, else: { elementId: "b" } },
        },
        model("a", "openai", "gpt-4o-mini"),
        model("b", "groq", "llama-3.1-8b-instant"),
        end,
      ],
    });
    const low = await ask("dynamic/split");
    expect(low.status).toBe(200);
    expect(low.headers.get("cf-aig-provider")).toBe("openai");
    await low.text();
    draw = 0.7;
    const high = await ask("dynamic/split");
    expect(high.headers.get("cf-aig-provider")).toBe("groq");
    await high.text();

    await client.aiGateway.dynamicRouting.create("chat", {
      account_id: accountId,
      name: "limited",
      elements: [
        start("limit"),
        {
          id: "limit",
          type: "rate",
          properties: { key: "metadata.user", limit: 1, limitType: "count", window: 60 },
          outputs: { success: { elementId: "premium" }, fallback: { elementId: "basic" } },
        },
        model("premium", "anthropic", "claude-sonnet-4-5"),
        model("basic", "openai", "gpt-4o-mini"),
        end,
      ],
    });
    const providers: (string | null)[] = [];
    for (const user of ["ada", "ada", "bob"]) {
      const response = await ask("dynamic/limited", {
        "cf-aig-metadata": JSON.stringify({ user }),
      });
      providers.push(`${response.status} ${response.headers.get("cf-aig-provider")}`);
      await response.text();
    }
    expect(providers).toEqual(["200 anthropic", "200 openai", "200 anthropic"]);
  });

  it("charges a cost budget with the answer's cost, whatever format the provider answers in", async () => {
    const { emulator: started, clock } = await emulatorWith({ config });
    emulator = started;
    const client = new Cloudflare({
      apiToken: emulator.gatewayToken,
      baseURL: emulator.restUrl,
      maxRetries: 0,
    });
    await client.aiGateway.dynamicRouting.create("chat", {
      account_id: accountId,
      name: "budgeted",
      elements: [
        start("budget"),
        {
          id: "budget",
          type: "rate",
          properties: { key: "metadata.team", limit: 0.0001, limitType: "cost", window: 60 },
          outputs: { success: { elementId: "premium" }, fallback: { elementId: "basic" } },
        },
        model("premium", "anthropic", "claude-sonnet-4-5"),
        model("basic", "openai", "gpt-4o-mini"),
        end,
      ],
    });
    const served: string[] = [];
    for (let call = 0; call < 4; call++) {
      const response = await ask("dynamic/budgeted", { "cf-aig-metadata": '{"team":"ml"}' });
      served.push(String(response.headers.get("cf-aig-provider")));
      await response.text();
    }
    // A Claude answer of the mock's size costs more than the budget: one call spends it.
    const premium = emulator.logs("chat")[0]!;
    expect(premium).toMatchObject({ provider: "anthropic", success: true });
    expect(premium.tokens_out).toBeGreaterThan(0);
    expect(premium.cost).toBeGreaterThan(0.0001);
    expect(served).toEqual(["anthropic", "openai", "openai", "openai"]);
    // The window slides: a minute later the budget is free again.
    clock.advance(60_000);
    const later = await ask("dynamic/budgeted", { "cf-aig-metadata": '{"team":"ml"}' });
    expect(later.headers.get("cf-aig-provider")).toBe("anthropic");
    await later.text();
  });

  it.each([
    [{ "60%": "a", "50%": "b" }, "sends 110 % of requests; at most 100 %"],
    [{ "30%": "a" }, "sends only 30 % of requests: add an else output"],
    [{ "1%": "a", "2%": "a", "3%": "a", "4%": "a", "5%": "a", "6%": "a", else: "b" }, "at most 5"],
  ])("refuses a percentage element Cloudflare would not run: %j", async (ports, problem) => {
    const { emulator: started } = await emulatorWith({ config });
    emulator = started;
    const response = await fetch(
      `${emulator.restUrl}/accounts/${accountId}/ai-gateway/gateways/chat/routes`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${emulator.gatewayToken}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          name: "split",
          elements: [
            start("split"),
            {
              id: "split",
              type: "percentage",
              outputs: Object.fromEntries(
                Object.entries(ports).map(([port, target]) => [port, { elementId: target }]),
              ),
            },
            model("a", "openai", "gpt-4o-mini"),
            model("b", "groq", "llama-3.1-8b-instant"),
            end,
          ],
        }),
      },
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { message: string }[] };
    expect(body.errors.map((error) => error.message).join("\n")).toContain(problem);
  });

  it("refuses a route whose graph is not well formed, naming the problem", async () => {
    const { emulator: started } = await emulatorWith({ config });
    emulator = started;
    const response = await fetch(
      `${emulator.restUrl}/accounts/${accountId}/ai-gateway/gateways/chat/routes`,
      {
        method: "POST",
        headers: {
          authorization: `Bearer ${emulator.gatewayToken}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          name: "loop",
          elements: [
            start("a"),
            model("a", "openai", "gpt-4o-mini", "b"),
            model("b", "groq", "llama-3.1-8b-instant", "a"),
            end,
          ],
        }),
      },
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { success: boolean; errors: { message: string }[] };
    expect(body.success).toBe(false);
    expect(body.errors[0]!.message).toContain("cycle");
  });

  it("answers 400 with code 2005 for a route the gateway does not have", async () => {
    const { emulator: started } = await emulatorWith({ config });
    emulator = started;
    const response = await ask("dynamic/nope");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ success: false, error: [{ code: 2005 }] });
  });
});
