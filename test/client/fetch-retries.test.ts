/**
 * One SDK call, one event (issue #26 item 3): the official OpenAI SDK through
 * `createGatewayFetch` against the emulator. The SDK retries a 503 itself, sending the request
 * again with `x-stainless-retry-count`; the tries are one call with one event id and one event
 * that counts them, and the gateway's logs read them back as that one call. An SDK stream that
 * carries usage records its tokens and cost.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { gatewayLogsSource } from "../../src/analytics/index.ts";
import { createGatewayFetch } from "../../src/client/fetch.ts";
import { sdkRetryWindowMs } from "../../src/client/fetch-retries.ts";
import { type CallEvent, memoryRecorder } from "../../src/client/index.ts";
import { parseConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const config = parseConfig({
  accountId,
  gateways: [
    {
      id: "chat-sdk",
      authentication: true,
      routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
    },
  ],
  keys: { providers: ["openai"] },
  models: { "openai/gpt-4o-mini": { input: 0.15, output: 0.6 } },
});
const messages = [{ role: "user" as const, content: "What is the capital of Italy?" }];

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ config });
});
afterAll(async () => {
  await emulator?.close();
});

function sdkThrough(maxRetries: number, endpoint = "openai") {
  const recorder = memoryRecorder();
  let next = 0;
  const fetch = createGatewayFetch({
    accountId,
    gatewayId: "chat-sdk",
    baseUrl: emulator.url,
    gatewayToken: emulator.gatewayToken,
    prices: config.models,
    recorder,
    generateId: () => `sdk-call-${++next}`,
  });
  const openai = new OpenAI({
    apiKey: "test-key-openai",
    baseURL: `${emulator.url}/v1/${accountId}/chat-sdk/${endpoint}`,
    fetch,
    maxRetries,
  });
  return { openai, recorder, fetch };
}

async function logsOf(id: string): Promise<CallEvent[]> {
  const calls: CallEvent[] = [];
  const source = gatewayLogsSource({
    accountId,
    gatewayId: "chat-sdk",
    apiToken: emulator.gatewayToken,
    baseURL: emulator.restUrl,
  });
  for await (const event of source.events()) if (event.id === id) calls.push(event);
  return calls;
}

describe("an SDK's retries through createGatewayFetch", () => {
  it("fold into the call's one event, with every try counted, and one call in the logs", async () => {
    emulator.mocks!.setFaults({ rules: [{ provider: "openai", kind: "unavailable", count: 1 }] });
    const { openai, recorder } = sdkThrough(2);
    const completion = await openai.chat.completions.create({ model: "gpt-4o-mini", messages });
    expect(completion.choices[0]?.message.content).toBeTruthy();
    await expect.poll(() => recorder.events.length).toBe(1);
    const [event] = recorder.events;
    expect(event).toMatchObject({
      id: "sdk-call-1",
      ok: true,
      status: 200,
      step: 0,
      attempts: 2,
      provider: "openai",
      model: "gpt-4o-mini",
      failedSteps: [{ step: 0, status: 503, at: "request" }],
    });
    expect(event!.cost).toBeGreaterThan(0);
    // Both tries went with one event id; the gateway's logs hold one call of two attempts.
    const [logged] = await logsOf("sdk-call-1");
    expect(logged).toMatchObject({ ok: true, step: 0, attempts: 2, cost: event!.cost });
    expect(logged!.metadata).toEqual({});
  });

  it("records a refusal the SDK does not retry at once", async () => {
    emulator.mocks!.setFaults({ rules: [{ provider: "openai", kind: "context-length" }] });
    const { openai, recorder } = sdkThrough(2);
    await expect(
      openai.chat.completions.create({ model: "gpt-4o-mini", messages }),
    ).rejects.toThrow();
    await expect.poll(() => recorder.events.length).toBe(1);
    expect(recorder.events[0]).toMatchObject({ ok: false, status: 400, attempts: 1 });
    emulator.mocks!.setFaults({ rules: [] });
  });

  it("records the last failure as soon as the SDK gives up, with every try counted", async () => {
    emulator.mocks!.setFaults({ rules: [{ provider: "openai", kind: "unavailable", count: 2 }] });
    const { openai, recorder } = sdkThrough(1);
    await expect(
      openai.chat.completions.create({ model: "gpt-4o-mini", messages }),
    ).rejects.toThrow();
    // The SDK read the last error's body to build its error: no retry follows, nothing waits.
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ ok: false, status: 503, attempts: 2 });
    emulator.mocks!.setFaults({ rules: [] });
  });

  it("records a failure whose retry never came once the SDK's retry window has passed", async () => {
    const recorder = memoryRecorder();
    // A gateway stand-in that answers 503 (no emulator, so only this test's timers are faked).
    const fetch = createGatewayFetch({
      accountId,
      gatewayId: "chat-sdk",
      baseUrl: "https://gateway.test",
      recorder,
      generateId: () => "sdk-call-held",
      fetch: async () =>
        new Response('{"error":{"message":"unavailable"}}', {
          status: 503,
          headers: { "content-type": "application/json" },
        }),
    });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const response = await fetch(
        `https://gateway.test/v1/${accountId}/chat-sdk/openai/chat/completions`,
        {
          method: "POST",
          headers: { "content-type": "application/json", "x-stainless-retry-count": "0" },
          body: JSON.stringify({ model: "gpt-4o-mini", messages }),
        },
      );
      expect(response.status).toBe(503);
      // What an SDK about to retry does: it cancels the error's body.
      await response.body?.cancel();
      expect(recorder.events).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(sdkRetryWindowMs);
      expect(recorder.events).toHaveLength(1);
      expect(recorder.events[0]).toMatchObject({
        id: "sdk-call-held",
        ok: false,
        status: 503,
        attempts: 1,
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ["provider-native", "openai", "gpt-4o-mini"],
    ["compat", "compat", "openai/gpt-4o-mini"],
  ])(
    "records tokens and cost of an SDK stream that carries usage (%s)",
    async (_, endpoint, model) => {
      const { openai, recorder } = sdkThrough(0, endpoint);
      const stream = await openai.chat.completions.create({
        model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
      expect(text).toBeTruthy();
      await expect.poll(() => recorder.events.length).toBe(1);
      const [event] = recorder.events;
      expect(event).toMatchObject({ ok: true, streamed: true, attempts: 1 });
      expect(event!.tokensIn).toBeGreaterThan(0);
      expect(event!.tokensOut).toBeGreaterThan(0);
      expect(event!.cost).toBeGreaterThan(0);
    },
  );
});
