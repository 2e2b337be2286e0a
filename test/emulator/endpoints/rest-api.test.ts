/**
 * The REST API's model endpoints (usage/rest-api.mdx; changelog 2026-05-21) in the emulator:
 * `/client/v4/accounts/{account}/ai/run`, `/ai/v1/chat/completions`, `/ai/v1/responses` and
 * `/ai/v1/messages`, with the API token in `Authorization`, the gateway in `cf-aig-gateway-id`
 * (the `default` gateway otherwise), and the gateway's features applied.
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { accountId, emulatorWith, readBody, testConfig, token } from "../helpers.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const question = [{ role: "user", content: "What is Cloudflare?" }];

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${emulator!.url}/client/v4/accounts/${accountId}/ai/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const chatGateway = {
  id: "chat",
  authentication: true,
  byok: { providers: ["openai"] },
  cache: { ttl: 300 },
  routes: {
    default: [
      { provider: "anthropic", model: "claude-sonnet-4-5" },
      { provider: "openai", model: "gpt-4o-mini" },
    ],
  },
};

describe("REST API: authentication and the gateway", () => {
  it("routes through the default gateway, created on first use", async () => {
    ({ emulator } = await emulatorWith());
    expect(emulator.state.gateways.get("default")).toBeUndefined();
    const response = await post("v1/chat/completions", {
      model: "openai/gpt-4.1",
      messages: question,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    expect(response.headers.get("cf-aig-model")).toBe("gpt-4.1");
    const logId = response.headers.get("cf-aig-log-id");
    expect(response.headers.get("cf-aig-request-id")).toBe(logId);
    expect(response.headers.get("cf-aig-event-id")).toBe(logId);
    expect(emulator.state.gateways.get("default")?.settings.authentication).toBe(true);
    expect(emulator.logs("default")[0]).toMatchObject({
      id: logId,
      request_type: "ai-chat-completions",
      provider: "openai",
      model: "gpt-4.1",
      wholesale: true,
      success: true,
    });
  });

  it("uses the gateway cf-aig-gateway-id names, and refuses one that does not exist", async () => {
    ({ emulator } = await emulatorWith({ config: testConfig([chatGateway]) }));
    const named = await post(
      "v1/chat/completions",
      { model: "openai/gpt-4o-mini", messages: question },
      { "cf-aig-gateway-id": "chat" },
    );
    expect(named.status).toBe(200);
    expect(emulator.logs("chat")).toHaveLength(1);
    const unknown = await post(
      "v1/chat/completions",
      { model: "openai/gpt-4o-mini", messages: question },
      { "cf-aig-gateway-id": "nope" },
    );
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: [{ code: 2001 }] });
    expect(emulator.state.gateways.get("default")).toBeUndefined();
  });

  it("answers 400 (9106) without a token and 401 (10000) with a wrong one", async () => {
    ({ emulator } = await emulatorWith());
    const missing = await fetch(`${emulator.url}/client/v4/accounts/${accountId}/ai/run`, {
      method: "POST",
      body: JSON.stringify({ model: "openai/gpt-4.1", input: { messages: question } }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ success: false, errors: [{ code: 9106 }] });
    const wrong = await post(
      "run",
      { model: "openai/gpt-4.1", input: { messages: question } },
      { authorization: "Bearer not-the-token" },
    );
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ success: false, errors: [{ code: 10000 }] });
    expect(emulator.mocks!.attempts).toEqual([]);
  });

  it("requires cf-aig-gateway-id for Workers AI models", async () => {
    ({ emulator } = await emulatorWith());
    const body = { model: "@cf/meta/llama-3.1-8b-instruct", messages: question };
    const without = await post("v1/chat/completions", body);
    expect(without.status).toBe(400);
    expect(((await without.json()) as { error: { message: string }[] }).error[0]!.message).toMatch(
      /cf-aig-gateway-id/,
    );
    const withId = await post("v1/chat/completions", body, { "cf-aig-gateway-id": "default" });
    expect(withId.status).toBe(200);
    expect(withId.headers.get("cf-aig-provider")).toBe("workers-ai");
    expect(emulator.mocks!.attempts[0]).toMatchObject({ provider: "workers-ai", auth: "valid" });
  });
});

describe("REST API: the four endpoints", () => {
  it("serves /ai/v1/chat/completions to the OpenAI SDK, streams included", async () => {
    ({ emulator } = await emulatorWith());
    const openai = new OpenAI({ apiKey: token, baseURL: emulator.aiUrl, maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: "anthropic/claude-sonnet-4-5",
      messages: [{ role: "user", content: "What is Cloudflare?" }],
    });
    expect(completion.choices[0]!.message.content).toContain(
      "Mock answer from anthropic model claude-sonnet-4-5",
    );
    const stream = await openai.chat.completions.create({
      model: "anthropic/claude-sonnet-4-5",
      messages: [{ role: "user", content: "What is Cloudflare?" }],
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toContain("[end]");
  });

  it("serves /ai/v1/responses to the OpenAI SDK", async () => {
    ({ emulator } = await emulatorWith());
    const openai = new OpenAI({ apiKey: token, baseURL: emulator.aiUrl, maxRetries: 0 });
    const response = await openai.responses.create({
      model: "openai/gpt-4.1",
      input: "What is Cloudflare?",
    });
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.output_text).toContain("Mock answer from openai model gpt-4.1");
    expect(response.usage!.output_tokens).toBeGreaterThan(0);
    expect(emulator.logs("default")[0]).toMatchObject({ request_type: "ai-responses" });
  });

  it("streams /ai/v1/responses as Responses events", async () => {
    ({ emulator } = await emulatorWith());
    const openai = new OpenAI({ apiKey: token, baseURL: emulator.aiUrl, maxRetries: 0 });
    const stream = await openai.responses.create({
      model: "anthropic/claude-sonnet-4-5",
      input: [{ role: "user", content: "What is Cloudflare?" }],
      stream: true,
    });
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(text).toContain("[end]");
  });

  it("serves /ai/v1/messages: Anthropic as sent, other providers converted", async () => {
    ({ emulator } = await emulatorWith());
    const body = { max_tokens: 512, messages: question };
    const anthropic = await post("v1/messages", { model: "anthropic/claude-sonnet-4-5", ...body });
    expect(anthropic.status).toBe(200);
    expect(await anthropic.json()).toMatchObject({ type: "message", role: "assistant" });
    const openai = await post("v1/messages", { model: "openai/gpt-4.1", ...body });
    const message = (await openai.json()) as {
      type: string;
      content: { type: string; text: string }[];
      stop_reason: string;
      usage: { output_tokens: number };
    };
    expect(message.type).toBe("message");
    expect(message.content[0]!.text).toContain("Mock answer from openai model gpt-4.1");
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const streamed = await post("v1/messages", { model: "openai/gpt-4.1", ...body, stream: true });
    const events = (await readBody(streamed)).text;
    expect(events).toMatch(/^event: message_start\n/);
    expect(events).toContain("event: content_block_delta");
    expect(events.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
    // The Anthropic SDK's apiKey arrives as x-api-key: it authenticates and is never forwarded.
    const viaApiKey = await post(
      "v1/messages",
      { model: "openai/gpt-4.1", ...body },
      { authorization: "", "x-api-key": token },
    );
    expect(viaApiKey.status).toBe(200);
    const attempt = emulator.mocks!.attempts.at(-1)!;
    expect(attempt).toMatchObject({ provider: "openai", auth: "valid" });
  });

  it("serves /ai/run in the Cloudflare envelope, and the Workers AI path", async () => {
    ({ emulator } = await emulatorWith());
    const run = await post("run", {
      model: "openai/gpt-4.1",
      input: { messages: question, max_tokens: 512 },
    });
    expect(run.status).toBe(200);
    const envelope = (await run.json()) as {
      success: boolean;
      result: { choices: { message: { content: string } }[] };
    };
    expect(envelope.success).toBe(true);
    expect(envelope.result.choices[0]!.message.content).toContain("gpt-4.1");
    const workersAi = await post("run/@cf/meta/llama-3.1-8b-instruct", { messages: question });
    expect(workersAi.status).toBe(200);
    expect(await workersAi.json()).toMatchObject({
      success: true,
      result: { response: expect.any(String) },
    });
    const logs = emulator.logs("default");
    expect(logs.map((log) => [log.request_type, log.provider])).toEqual([
      ["ai-run", "openai"],
      ["ai-run", "workers-ai"],
    ]);
    expect(logs[0]!.tokens_out).toBeGreaterThan(0);
  });

  it("runs dynamic/<route> of the named gateway", async () => {
    ({ emulator } = await emulatorWith({
      config: testConfig([{ ...chatGateway, byok: { providers: ["anthropic", "openai"] } }]),
      faults: { rules: [{ provider: "anthropic", kind: "unavailable" }] },
    }));
    const response = await post(
      "v1/chat/completions",
      { model: "dynamic/default", messages: question },
      { "cf-aig-gateway-id": "chat" },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    expect(response.headers.get("cf-aig-model")).toBe("gpt-4o-mini");
    expect(response.headers.get("cf-aig-step")).toBe("1");
  });
});

describe("REST API: credentials", () => {
  it("uses a key on the request, else the stored key, else Unified Billing", async () => {
    ({ emulator } = await emulatorWith({
      config: testConfig([chatGateway]),
      // Each mock accepts only the key the call is meant to use.
      mockKeys: { openai: ["sk-request"], anthropic: ["stepwise-unified-billing-anthropic"] },
    }));
    const mocks = emulator.mocks!;
    const body = (content: string) => ({
      model: "openai/gpt-4o-mini",
      messages: [{ role: "user", content }],
    });
    // The token in cf-aig-authorization leaves Authorization for the provider's key.
    const request = await post("v1/chat/completions", body("request key"), {
      "cf-aig-authorization": `Bearer ${token}`,
      authorization: "Bearer sk-request",
      "cf-aig-gateway-id": "chat",
    });
    mocks.setKeys("openai", ["stepwise-dev-byok-openai"]);
    const stored = await post("v1/chat/completions", body("stored key"), {
      "cf-aig-gateway-id": "chat",
    });
    const unified = await post("v1/chat/completions", {
      model: "anthropic/claude-sonnet-4-5",
      messages: question,
    });
    expect([request.status, stored.status, unified.status]).toEqual([200, 200, 200]);
    expect(mocks.attempts.map((attempt) => [attempt.provider, attempt.auth])).toEqual([
      ["openai", "valid"],
      ["openai", "valid"],
      ["anthropic", "valid"],
    ]);
    expect(emulator.logs("chat").map((log) => log.wholesale)).toEqual([undefined, undefined]);
    expect(emulator.logs("default")[0]!.wholesale).toBe(true);
  });

  it("answers 401 (2009) when the provider rejects the key, 503 under Unified Billing", async () => {
    ({ emulator } = await emulatorWith({
      config: testConfig([chatGateway]),
      mockKeys: { openai: ["sk-good"], anthropic: ["sk-good"] },
    }));
    const rejected = await post(
      "v1/chat/completions",
      { model: "openai/gpt-4o-mini", messages: question },
      { "cf-aig-gateway-id": "chat" },
    );
    expect(rejected.status).toBe(401);
    expect(await rejected.json()).toMatchObject({
      name: "AiGatewayError",
      error: [{ code: 2009 }],
    });
    const unified = await post("run", {
      model: "anthropic/claude-sonnet-4-5",
      input: { messages: question, max_tokens: 100 },
    });
    expect(unified.status).toBe(503);
    // Not retried: a refused key is the one provider's answer.
    expect(emulator.mocks!.attempts).toHaveLength(2);
  });

  it("refuses a third-party call without credentials under byok_only or cf-aig-no-wholesale", async () => {
    ({ emulator } = await emulatorWith());
    const noWholesale = await post(
      "v1/chat/completions",
      { model: "openai/gpt-4.1", messages: question },
      { "cf-aig-no-wholesale": "true" },
    );
    expect(noWholesale.status).toBe(400);
    expect(
      ((await noWholesale.json()) as { error: { message: string }[] }).error[0]!.message,
    ).toMatch(/cf-aig-no-wholesale/);
    emulator.state.gateways.get("default")!.settings.byok_only = true;
    const byokOnly = await post("v1/chat/completions", {
      model: "openai/gpt-4.1",
      messages: question,
    });
    expect(byokOnly.status).toBe(400);
    // Workers AI is exempt: billed to the account.
    const workersAi = await post(
      "v1/chat/completions",
      { model: "@cf/meta/llama-3.1-8b-instruct", messages: question },
      { "cf-aig-gateway-id": "default" },
    );
    expect(workersAi.status).toBe(200);
    expect(emulator.mocks!.attempts.map((attempt) => attempt.provider)).toEqual(["workers-ai"]);
  });

  it("spends Unified Billing credits and answers 402 (2021) once they are gone", async () => {
    ({ emulator } = await emulatorWith({
      credits: 0.000001,
      config: testConfig([], { "openai/gpt-4.1": { input: 2, output: 8 } }),
    }));
    const body = { model: "openai/gpt-4.1", messages: question };
    const first = await post("v1/chat/completions", body);
    expect(first.status).toBe(200);
    expect(emulator.state.credits.remaining).toBe(0);
    const second = await post("v1/chat/completions", body);
    expect(second.status).toBe(402);
    expect(await second.json()).toMatchObject({ error: [{ code: 2021 }] });
    expect(emulator.mocks!.attempts).toHaveLength(1);
  });
});

describe("REST API: gateway features as on the legacy endpoints", () => {
  it("caches, logs the user agent and honours the cf-aig-* headers", async () => {
    ({ emulator } = await emulatorWith({ config: testConfig([chatGateway]) }));
    const body = { model: "openai/gpt-4o-mini", messages: question };
    const headers = {
      "cf-aig-gateway-id": "chat",
      "cf-aig-metadata": '{"team":"AI"}',
      "user-agent": "rest-test/1.0",
    };
    const first = await post("v1/chat/completions", body, headers);
    const second = await post("v1/chat/completions", body, headers);
    expect(first.headers.get("cf-aig-cache-status")).toBe("MISS");
    expect(second.headers.get("cf-aig-cache-status")).toBe("HIT");
    expect(emulator.mocks!.attempts).toHaveLength(1);
    const [log] = emulator.logs("chat");
    expect(log).toMatchObject({ user_agent: "rest-test/1.0", metadata: '{"team":"AI"}' });
    const bad = await post("v1/chat/completions", body, { "cf-aig-retry-delay": "6000" });
    expect(bad.status).toBe(400);
  });
});
