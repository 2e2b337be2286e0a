import { describe, expect, it } from "vitest";
import { AllStepsFailedError } from "../../src/client/errors.ts";
import { createTestServer } from "../helpers/test-server.ts";
import {
  compatUrl,
  fixtureAnswer,
  fixtureJson,
  messages,
  rejectionOf,
  secrets,
  testClient,
} from "./helpers.ts";

const compatAnswer = fixtureJson("client/compat-response.json");

const server = createTestServer({
  [compatUrl]: {
    response: {
      type: "json",
      body: compatAnswer,
      headers: {
        "cf-aig-provider": "openai",
        "cf-aig-model": "gpt-4o-mini",
        "cf-aig-log-id": "01JDYNAMICLOG0000000000000",
      },
    },
  },
});

describe("dynamic routes (compat endpoint, dynamic/<route>)", () => {
  it("sends an OpenAI-shaped request naming the route, with no provider keys", async () => {
    const { client } = testClient({ mode: "dynamic" });
    await client.chat({ route: "default", messages, maxTokens: 256, cacheTtl: 600 });
    const call = server.calls[0]!;
    expect(call.url).toBe(
      "https://gateway.test/v1/0123456789abcdef0123456789abcdef/chat-prod/compat/chat/completions",
    );
    expect(call.headers).toMatchObject({
      "content-type": "application/json",
      "cf-aig-authorization": `Bearer ${secrets.gatewayToken}`,
      "cf-aig-cache-ttl": "600",
      "cf-aig-event-id": "call-1",
    });
    expect(call.headers.authorization).toBeUndefined();
    expect(call.body).toStrictEqual({
      model: "dynamic/default",
      messages: [
        { role: "system", content: "You are a terse geography tutor." },
        { role: "user", content: "What is the capital of Italy?" },
      ],
      max_tokens: 256,
    });
  });

  it("maps cf-aig-provider and cf-aig-model back to the route's step", async () => {
    const { client, recorder } = testClient();
    const answer = await client.chat({ route: "default", messages, mode: "dynamic" });
    expect(answer.text).toBe(fixtureAnswer);
    expect(answer.served).toMatchObject({
      index: 1,
      provider: "openai",
      model: "gpt-4o-mini",
      responseModel: "gpt-4o-mini-2024-07-18",
      logId: "01JDYNAMICLOG0000000000000",
    });
    expect(answer.cost).toBeCloseTo((38 * 0.15 + 11 * 0.6) / 1_000_000, 12);
    expect(recorder.events[0]).toMatchObject({ mode: "dynamic", step: 1, provider: "openai" });
  });

  it("accepts cf-aig-model in provider/model form", async () => {
    server.urls[compatUrl]!.response = {
      type: "json",
      body: compatAnswer,
      headers: {
        "cf-aig-provider": "workers-ai",
        "cf-aig-model": "workers-ai/@cf/meta/llama-3.1-8b-instruct",
      },
    };
    const { client } = testClient({ mode: "dynamic" });
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({ index: 2, provider: "workers-ai" });
  });

  it("falls back to the body's model when the gateway sends no served-step headers", async () => {
    server.urls[compatUrl]!.response = { type: "json", body: compatAnswer };
    const { client } = testClient({ mode: "dynamic" });
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", model: "gpt-4o-mini" });
  });

  it("says honestly that the step is unknown when nothing names it", async () => {
    server.urls[compatUrl]!.response = {
      type: "json",
      body: { ...compatAnswer, model: "some-other-model" },
    };
    const { client, recorder } = testClient({ mode: "dynamic" });
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({
      index: null,
      provider: null,
      model: null,
      responseModel: "some-other-model",
    });
    expect(answer.cost).toBeNull();
    expect(recorder.events[0]).toMatchObject({ ok: true, step: null, model: "some-other-model" });
  });

  it("reports every step failed when the route's last model fails", async () => {
    server.urls[compatUrl]!.response = {
      type: "error",
      status: 503,
      body: fixtureJson("client/workers-ai-error-503.json"),
      headers: {
        "cf-aig-provider": "workers-ai",
        "cf-aig-model": "@cf/meta/llama-3.1-8b-instruct",
      },
    };
    const { client } = testClient({ mode: "dynamic", maxAttempts: 1 });
    const error = await rejectionOf(client.chat({ route: "default", messages }));
    expect(AllStepsFailedError.isInstance(error)).toBe(true);
    expect((error as AllStepsFailedError).steps.map((step) => step.status)).toStrictEqual([
      null,
      null,
      503,
    ]);
  });
});
