import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { createTestServer } from "../helpers/test-server.ts";
import {
  compatUrl,
  fixtureAnswer,
  fixtureJson,
  fixtureText,
  gatewayUrl,
  messages,
  secrets,
  testClient,
} from "./helpers.ts";

const openAiNativeUrl = `${gatewayUrl}/openai/chat/completions`;
const elsewhere = "https://api.example.test/v1/chat/completions";

const server = createTestServer({
  [compatUrl]: {
    response: {
      type: "json",
      body: fixtureJson("client/compat-response.json"),
      headers: {
        "cf-aig-provider": "openai",
        "cf-aig-model": "gpt-4o-mini",
        "cf-aig-log-id": "01JSDKLOG00000000000000000",
        "cf-aig-cache-status": "MISS",
      },
    },
  },
  [openAiNativeUrl]: {
    response: { type: "json", body: fixtureJson("providers/openai/response.json") },
  },
  [elsewhere]: { response: { type: "json", body: fixtureJson("providers/openai/response.json") } },
});

function sdk(baseURL: string, fetch: typeof globalThis.fetch) {
  return new OpenAI({ apiKey: secrets.openai, baseURL, fetch, maxRetries: 0 });
}

describe("the official OpenAI SDK through createGatewayFetch", () => {
  it("calls a dynamic route on the compat endpoint and records the step that served", async () => {
    const { client, fetch, recorder } = testClient();
    const openai = sdk(client.url("compat"), fetch);
    const completion = await openai.chat.completions.create({
      model: "dynamic/default",
      messages: [...messages],
    });

    expect(completion.choices[0]?.message.content).toBe(fixtureAnswer);
    const call = server.calls[0]!;
    expect(call.url).toBe(compatUrl);
    expect(call.headers).toMatchObject({
      authorization: `Bearer ${secrets.openai}`,
      "cf-aig-authorization": `Bearer ${secrets.gatewayToken}`,
      "cf-aig-event-id": "call-1",
    });
    expect(call.body).toMatchObject({ model: "dynamic/default" });
    await expect.poll(() => recorder.events.length).toBe(1);
    expect(recorder.events[0]).toStrictEqual({
      time: "2026-05-01T12:00:00.000Z",
      id: "call-1",
      gateway: "chat-prod",
      route: "default",
      mode: "fetch",
      endpoint: "compat",
      step: 1,
      provider: "openai",
      model: "gpt-4o-mini",
      status: 200,
      ok: true,
      cacheStatus: "MISS",
      latencyMs: 0,
      tokensIn: 38,
      tokensOut: 11,
      cost: (38 * 0.15 + 11 * 0.6) / 1_000_000,
      errorCode: null,
      logId: "01JSDKLOG00000000000000000",
      attempts: 1,
      streamed: false,
    });
  });

  it("records provider-native calls as the provider's single step", async () => {
    const { client, fetch, recorder } = testClient();
    const openai = sdk(client.url("openai"), fetch);
    await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [...messages] });
    expect(server.calls[0]!.url).toBe(openAiNativeUrl);
    await expect.poll(() => recorder.events.length).toBe(1);
    expect(recorder.events[0]).toMatchObject({
      route: "openai",
      step: 0,
      provider: "openai",
      model: "gpt-4o-mini",
      tokensIn: 38,
      tokensOut: 11,
      ok: true,
    });
  });

  it("records a stream once it has ended, with its usage", async () => {
    server.urls[compatUrl]!.response = {
      type: "sse",
      events: [fixtureText("providers/openai/stream.sse")],
      headers: { "cf-aig-provider": "openai", "cf-aig-model": "gpt-4o-mini" },
    };
    const { client, fetch, recorder } = testClient();
    const openai = sdk(client.url("compat"), fetch);
    const stream = await openai.chat.completions.create({
      model: "dynamic/default",
      messages: [...messages],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe(fixtureAnswer);
    await expect.poll(() => recorder.events.length).toBe(1);
    expect(recorder.events[0]).toMatchObject({
      streamed: true,
      ok: true,
      step: 1,
      tokensIn: 38,
      tokensOut: 11,
    });
  });

  it("records a stream that ends without any completion signal as incomplete", async () => {
    // Neither the finish reason nor [DONE]: the answer may be cut short.
    const events = fixtureText("providers/openai/stream.sse")
      .split("\n\n")
      .filter((event) => !event.includes('"finish_reason":"stop"') && !event.includes("[DONE]"))
      .join("\n\n");
    server.urls[compatUrl]!.response = {
      type: "sse",
      events: [events],
      headers: { "cf-aig-provider": "openai", "cf-aig-model": "gpt-4o-mini" },
    };
    const { client, fetch, recorder } = testClient();
    const openai = sdk(client.url("compat"), fetch);
    const stream = await openai.chat.completions.create({
      model: "dynamic/default",
      messages: [...messages],
      stream: true,
    });
    for await (const _ of stream) {
      // The SDK itself accepts the stream; the event tells the truth.
    }
    await expect.poll(() => recorder.events.length).toBe(1);
    expect(recorder.events[0]).toMatchObject({ ok: false, errorCode: "incomplete_stream" });
  });

  it("records the gateway's errors and still hands the SDK the response", async () => {
    server.urls[compatUrl]!.response = {
      type: "error",
      status: 429,
      body: fixtureJson("client/gateway-error-429.json"),
      headers: { "retry-after": "3" },
    };
    // The SDK (maxRetries: 0) reads the error's body: it gave up, so the failure is recorded.
    const { client, fetch, recorder } = testClient();
    const openai = sdk(client.url("compat"), fetch);
    const error = await openai.chat.completions
      .create({ model: "dynamic/default", messages: [...messages] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(recorder.events[0]).toMatchObject({
      ok: false,
      status: 429,
      errorCode: "rate_limited",
      step: null,
    });
  });

  it("keeps an event id the caller set, and passes other URLs through unrecorded", async () => {
    const { fetch, recorder } = testClient();
    await fetch(compatUrl, {
      method: "POST",
      headers: { "cf-aig-event-id": "mine", "content-type": "application/json" },
      body: JSON.stringify({ model: "dynamic/default", messages }),
    });
    await fetch(elsewhere, { method: "POST", body: "{}" });
    expect(server.calls[0]!.headers["cf-aig-event-id"]).toBe("mine");
    expect(server.calls[1]!.headers["cf-aig-authorization"]).toBeUndefined();
    await expect.poll(() => recorder.events.length).toBe(1);
    expect(recorder.events[0]?.id).toBe("mine");
  });
});
