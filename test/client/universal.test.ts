import { describe, expect, it } from "vitest";
import { createTestServer } from "../helpers/test-server.ts";
import {
  fixtureAnswer,
  fixtureJson,
  gatewayUrl,
  messages,
  secrets,
  servedHeaders,
  testClient,
} from "./helpers.ts";

const server = createTestServer({
  [gatewayUrl]: {
    response: {
      type: "json",
      body: fixtureJson("providers/anthropic/response.json"),
      headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
    },
  },
});

const system = "You are a terse geography tutor.";
const user = { role: "user", content: "What is the capital of Italy?" };

describe("universal requests", () => {
  it("sends the route's chain to the universal endpoint, each step in its provider's shape", async () => {
    const { client } = testClient();
    await client.chat({ route: "default", messages, maxTokens: 256, temperature: 0.2 });

    expect(server.calls).toHaveLength(1);
    const call = server.calls[0]!;
    expect(call.method).toBe("POST");
    expect(call.url).toBe("https://gateway.test/v1/0123456789abcdef0123456789abcdef/chat-prod");
    expect(call.headers).toMatchObject({
      "content-type": "application/json",
      "cf-aig-authorization": `Bearer ${secrets.gatewayToken}`,
      "cf-aig-event-id": "call-1",
    });
    expect(call.body).toStrictEqual([
      {
        provider: "anthropic",
        endpoint: "v1/messages",
        headers: {
          "content-type": "application/json",
          "x-api-key": secrets.anthropic,
          "anthropic-version": "2023-06-01",
        },
        query: {
          model: "claude-sonnet-4-5",
          max_tokens: 256,
          system,
          messages: [user],
          temperature: 0.2,
        },
        config: { requestTimeout: 15000, maxAttempts: 2 },
      },
      {
        provider: "openai",
        endpoint: "chat/completions",
        headers: { "content-type": "application/json", authorization: `Bearer ${secrets.openai}` },
        query: {
          model: "gpt-4o-mini",
          messages: [{ role: "system", content: system }, user],
          max_completion_tokens: 256,
          temperature: 0.2,
        },
        config: { requestTimeout: 10000 },
      },
      {
        provider: "workers-ai",
        endpoint: "@cf/meta/llama-3.1-8b-instruct",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${secrets["workers-ai"]}`,
        },
        query: {
          messages: [{ role: "system", content: system }, user],
          max_tokens: 256,
          temperature: 0.2,
        },
        config: { requestTimeout: 5000 },
      },
    ]);
  });

  it("leaves provider keys out when no keyLookup is given (BYOK or the companion Worker)", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/groq/response.json"),
      headers: servedHeaders(0, "groq", "llama-3.1-8b-instant"),
    };
    const { client } = testClient({ keyLookup: undefined });
    await client.chat({ route: "fast", messages });
    const steps = server.calls[0]!.body as { headers: Record<string, string> }[];
    expect(steps.map((step) => step.headers)).toStrictEqual([
      { "content-type": "application/json" },
      { "content-type": "application/json", "cf-aig-cache-ttl": "0" },
    ]);
  });

  it("reads step 0 with the first provider's adapter", async () => {
    const { client, recorder } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer).toStrictEqual({
      id: "call-1",
      text: fixtureAnswer,
      usage: { tokensIn: 31, tokensOut: 14 },
      cost: (31 * 3 + 14 * 15) / 1_000_000,
      finishReason: "stop",
      served: {
        index: 0,
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        responseModel: "claude-sonnet-4-5-20250929",
        cached: false,
        logId: "01JLOG0ABCDEFGHJKMNPQRSTV",
        attempts: 1,
        latencyMs: 0,
      },
    });
    expect(recorder.events).toStrictEqual([
      {
        time: "2026-05-01T12:00:00.000Z",
        id: "call-1",
        gateway: "chat-prod",
        route: "default",
        mode: "universal",
        step: 0,
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        status: 200,
        ok: true,
        cacheStatus: "MISS",
        latencyMs: 0,
        tokensIn: 31,
        tokensOut: 14,
        cost: (31 * 3 + 14 * 15) / 1_000_000,
        errorCode: null,
        logId: "01JLOG0ABCDEFGHJKMNPQRSTV",
        attempts: 1,
        streamed: false,
      },
    ]);
  });

  it("reads step 1 (first fallback) with OpenAI's adapter and prices it as gpt-4o-mini", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/openai/response.json"),
      headers: servedHeaders(1, "openai", "gpt-4o-mini"),
    };
    const { client, recorder } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.text).toBe(fixtureAnswer);
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", model: "gpt-4o-mini" });
    expect(answer.usage).toStrictEqual({ tokensIn: 38, tokensOut: 11 });
    expect(answer.cost).toBeCloseTo((38 * 0.15 + 11 * 0.6) / 1_000_000, 12);
    expect(recorder.events[0]).toMatchObject({ step: 1, provider: "openai", ok: true });
  });

  it("reads step 2 (second fallback) from Workers AI's envelope, which names no model", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/workers-ai/response.json"),
      headers: servedHeaders(2, "workers-ai", "@cf/meta/llama-3.1-8b-instruct"),
    };
    const { client, recorder } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.text).toBe(fixtureAnswer);
    expect(answer.served).toMatchObject({
      index: 2,
      provider: "workers-ai",
      model: "@cf/meta/llama-3.1-8b-instruct",
      responseModel: "@cf/meta/llama-3.1-8b-instruct",
    });
    expect(answer.usage).toStrictEqual({ tokensIn: 42, tokensOut: 12 });
    expect(recorder.events[0]).toMatchObject({ step: 2, provider: "workers-ai", tokensIn: 42 });
  });

  it("trusts cf-aig-step alone when the gateway sends no provider or model", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/openai/response.json"),
      headers: { "cf-aig-step": "1" },
    };
    const { client } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", logId: null });
  });

  it("trusts provider and model over a stale cf-aig-step (seen on the live service)", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/workers-ai/response.json"),
      headers: servedHeaders(0, "workers-ai", "@cf/meta/llama-3.1-8b-instruct"),
    };
    const { client } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({ index: 2, provider: "workers-ai" });
  });

  it("takes an answer without served-step headers as step 0", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/anthropic/response.json"),
    };
    const { client } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({ index: 0, provider: "anthropic", cached: false });
  });

  it("marks a cache HIT as cached, costing nothing", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/openai/response.json"),
      headers: servedHeaders(1, "openai", "gpt-4o-mini", { "cf-aig-cache-status": "HIT" }),
    };
    const { client, recorder } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({ index: 1, cached: true });
    expect(answer.cost).toBe(0);
    expect(recorder.events[0]).toMatchObject({ cacheStatus: "HIT", cost: 0, step: 1, ok: true });
  });

  it("reports no cost for a model without a price", async () => {
    const { client } = testClient({ prices: {} });
    const answer = await client.chat({ route: "default", messages });
    expect(answer.cost).toBeNull();
  });

  it("measures latency with the injected clock", async () => {
    const { client, clock } = testClient();
    server.urls[gatewayUrl]!.response = () => {
      clock.advance(420);
      return {
        type: "json",
        body: fixtureJson("providers/anthropic/response.json"),
        headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
      };
    };
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served.latencyMs).toBe(420);
  });

  it("sends Google AI Studio and Mistral steps in their own shapes, with per-step cache settings", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/google-ai-studio/response.json"),
      headers: servedHeaders(0, "google-ai-studio", "gemini-2.5-flash"),
    };
    const { client } = testClient({
      routes: {
        "long-context": [
          { provider: "google-ai-studio", model: "gemini-2.5-flash", timeoutMs: 20000 },
          { provider: "mistral", model: "mistral-large-latest", cacheTtl: 0 },
        ],
      },
      keyLookup: (provider) => `key-for-${provider}`,
    });
    const answer = await client.chat({ route: "long-context", messages, maxTokens: 100 });
    expect(server.calls[0]!.body).toStrictEqual([
      {
        provider: "google-ai-studio",
        endpoint: "v1beta/models/gemini-2.5-flash:generateContent",
        headers: {
          "content-type": "application/json",
          "x-goog-api-key": "key-for-google-ai-studio",
        },
        query: {
          contents: [{ role: "user", parts: [{ text: user.content }] }],
          systemInstruction: { parts: [{ text: system }] },
          generationConfig: { maxOutputTokens: 100 },
        },
        config: { requestTimeout: 20000 },
      },
      {
        provider: "mistral",
        endpoint: "v1/chat/completions",
        headers: {
          "content-type": "application/json",
          authorization: "Bearer key-for-mistral",
          "cf-aig-cache-ttl": "0",
        },
        query: {
          model: "mistral-large-latest",
          messages: [{ role: "system", content: system }, user],
          max_tokens: 100,
        },
      },
    ]);
    expect(answer).toMatchObject({
      text: fixtureAnswer,
      usage: { tokensIn: 17 },
      served: { index: 0, provider: "google-ai-studio", responseModel: "gemini-2.5-flash" },
    });
  });
});
