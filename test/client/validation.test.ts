import { describe, expect, it } from "vitest";
import { OutputRejectedError } from "../../src/client/errors.ts";
import type { ChatDelta, ChatResponse } from "../../src/client/index.ts";
import { createTestServer, type TestResponse } from "../helpers/test-server.ts";
import {
  compatUrl,
  fixtureAnswer,
  fixtureJson,
  fixtureText,
  gatewayUrl,
  messages,
  rejectionOf,
  servedHeaders,
  testClient,
} from "./helpers.ts";

/** Step `position` of the chain sent answered with `provider`'s recorded body. */
function answerFrom(position: number, provider: string, model: string): TestResponse {
  return {
    type: "json",
    body: fixtureJson(`providers/${provider}/response.json`),
    headers: servedHeaders(position, provider, model),
  };
}

const anthropic = answerFrom(0, "anthropic", "claude-sonnet-4-5");
const server = createTestServer({
  [gatewayUrl]: { response: anthropic },
  [compatUrl]: {
    response: {
      type: "json",
      body: fixtureJson("client/compat-response.json"),
      headers: { "cf-aig-provider": "anthropic", "cf-aig-model": "claude-sonnet-4-5" },
    },
  },
});

function sentProviders(callIndex: number): string[] {
  return (server.calls[callIndex]!.body as { provider: string }[]).map((step) => step.provider);
}

describe("output validation", () => {
  it("retries with the steps after the one whose answer was rejected, and records both", async () => {
    server.urls[gatewayUrl]!.response = [anthropic, answerFrom(0, "openai", "gpt-4o-mini")];
    const seen: ChatResponse[] = [];
    const { client, recorder, waits } = testClient();
    const answer = await client.chat({
      route: "default",
      messages,
      validate: (result) => {
        seen.push(result);
        return result.served.provider === "anthropic"
          ? "answer must come from a cheaper model"
          : true;
      },
    });

    expect(seen.map((result) => result.served.index)).toStrictEqual([0, 1]);
    expect(sentProviders(1)).toStrictEqual(["openai", "workers-ai"]);
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", attempts: 2 });
    expect(waits).toStrictEqual([]);
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({
      ok: true,
      step: 1,
      attempts: 2,
      errorCode: null,
      rejectedSteps: [0],
    });
  });

  it("reports what a rejected answer cost apart from the answer kept, and nothing it cannot price", async () => {
    const rejectAnthropic = (result: ChatResponse) => result.served.provider !== "anthropic";
    server.urls[gatewayUrl]!.response = [anthropic, answerFrom(0, "openai", "gpt-4o-mini")];
    const seen: ChatResponse[] = [];
    const { client, recorder } = testClient();
    const answer = await client.chat({
      route: "default",
      messages,
      validate: (result) => {
        seen.push(result);
        return rejectAnthropic(result);
      },
    });
    // The rejected answer came whole, with its usage: what it cost was spent.
    expect(seen[0]!.cost).toBeGreaterThan(0);
    expect(recorder.events[0]).toMatchObject({
      cost: answer.cost,
      failedAttemptsCost: seen[0]!.cost,
    });

    // Without prices nothing is known of it: the field is absent, as on a call nothing failed.
    server.urls[gatewayUrl]!.response = [anthropic, answerFrom(0, "openai", "gpt-4o-mini")];
    const unpriced = testClient({ prices: undefined });
    await unpriced.client.chat({ route: "default", messages, validate: rejectAnthropic });
    server.urls[gatewayUrl]!.response = anthropic;
    await unpriced.client.chat({ route: "default", messages });
    expect(unpriced.recorder.events.map((event) => "failedAttemptsCost" in event)).toEqual([
      false,
      false,
    ]);
  });

  it("throws OutputRejectedError with every reason when no step is left", async () => {
    server.urls[gatewayUrl]!.response = [
      anthropic,
      answerFrom(0, "openai", "gpt-4o-mini"),
      answerFrom(0, "workers-ai", "@cf/meta/llama-3.1-8b-instruct"),
    ];
    const { client, recorder } = testClient();
    const error = await rejectionOf(
      client.chat({ route: "default", messages, validate: async () => false }),
    );
    expect(OutputRejectedError.isInstance(error)).toBe(true);
    expect((error as OutputRejectedError).rejections).toStrictEqual([
      { index: 0, provider: "anthropic", model: "claude-sonnet-4-5", reason: "rejected" },
      { index: 1, provider: "openai", model: "gpt-4o-mini", reason: "rejected" },
      {
        index: 2,
        provider: "workers-ai",
        model: "@cf/meta/llama-3.1-8b-instruct",
        reason: "rejected",
      },
    ]);
    expect(error).toMatchObject({ code: "output_rejected", isRetryable: false });
    expect(server.calls).toHaveLength(3);
    expect(recorder.events[0]).toMatchObject({
      ok: false,
      errorCode: "output_rejected",
      rejectedSteps: [0, 1, 2],
      attempts: 3,
    });
  });

  it("stops at maxAttempts even with steps left", async () => {
    const { client } = testClient();
    const error = await rejectionOf(
      client.chat({ route: "default", messages, maxAttempts: 1, validate: () => "too short" }),
    );
    expect(OutputRejectedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("step 0 (anthropic): too short");
    expect(server.calls).toHaveLength(1);
  });

  it("continues a dynamic route with a universal request for the later steps", async () => {
    server.urls[gatewayUrl]!.response = answerFrom(0, "openai", "gpt-4o-mini");
    const { client } = testClient({ mode: "dynamic" });
    const answer = await client.chat({
      route: "default",
      messages,
      validate: (result) => result.served.index !== 0,
    });
    expect(server.calls.map((call) => call.url)).toStrictEqual([compatUrl, gatewayUrl]);
    expect(sentProviders(1)).toStrictEqual(["openai", "workers-ai"]);
    expect(answer.served).toMatchObject({ index: 1, provider: "openai" });
  });

  it("lets a validator's own error fail the call, recorded once", async () => {
    const { client, recorder } = testClient();
    const failure = new TypeError("validator bug");
    const error = await rejectionOf(
      client.chat({
        route: "default",
        messages,
        validate: () => {
          throw failure;
        },
      }),
    );
    expect(error).toBe(failure);
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ ok: false, errorCode: "unexpected_error" });
  });

  it("checks a stream's complete answer; a rejection restarts the stream on the next steps", async () => {
    server.urls[gatewayUrl]!.response = [
      {
        type: "sse",
        events: [fixtureText("providers/anthropic/stream.sse")],
        headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
      },
      {
        type: "sse",
        events: [fixtureText("providers/openai/stream.sse")],
        headers: servedHeaders(0, "openai", "gpt-4o-mini"),
      },
    ];
    const { client, recorder } = testClient();
    const stream = client.stream({
      route: "default",
      messages,
      validate: (result) => (result.served.index === 0 ? "step 0 is not trusted" : true),
    });
    const deltas: ChatDelta[] = [];
    for await (const delta of stream) deltas.push(delta);
    const answer = await stream.result;
    expect(answer.served).toMatchObject({ index: 1, provider: "openai" });
    expect(answer.text).toBe(fixtureAnswer);
    const restart = deltas.findIndex((delta) => delta.type === "restart");
    expect(deltas[restart]).toStrictEqual({
      type: "restart",
      step: 0,
      reason: "output_rejected",
      discardedChars: fixtureAnswer.length,
    });
    // The text before the restart is step 0's answer; after it, step 1's.
    const textOf = (part: ChatDelta[]) =>
      part.map((delta) => (delta.type === "text" ? delta.text : "")).join("");
    expect(textOf(deltas.slice(0, restart))).toBe(fixtureAnswer);
    expect(textOf(deltas.slice(restart))).toBe(fixtureAnswer);
    expect(recorder.events[0]).toMatchObject({
      ok: true,
      step: 1,
      rejectedSteps: [0],
      discardedChars: fixtureAnswer.length,
    });
  });

  it("fails a rejected stream when its policy is fail", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "sse",
      events: [fixtureText("providers/anthropic/stream.sse")],
      headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
    };
    const { client, recorder } = testClient();
    const stream = client.stream({
      route: "default",
      messages,
      onStreamBreak: "fail",
      validate: (result) => (result.text.includes("Rome") ? "must not mention Rome" : true),
    });
    const error = await rejectionOf(stream.collect());
    expect(OutputRejectedError.isInstance(error)).toBe(true);
    expect(recorder.events[0]).toMatchObject({ errorCode: "output_rejected", rejectedSteps: [0] });
  });
});
