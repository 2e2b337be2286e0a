import { describe, expect, it } from "vitest";
import { AbortedError, InvalidResponseError } from "../../src/client/errors.ts";
import type { ChatDelta } from "../../src/client/index.ts";
import { createTestServer, type TestResponse } from "../helpers/test-server.ts";
import {
  compatUrl,
  eventsOf,
  fixtureAnswer,
  gatewayUrl,
  messages,
  rejectionOf,
  servedHeaders,
  testClient,
} from "./helpers.ts";

const anthropicEvents = eventsOf("providers/anthropic/stream.sse");
const withoutEnd = anthropicEvents.filter((event) => !event.includes("message_stop"));
const anthropicStream = (events: string[], end?: "close" | "cut" | "stall"): TestResponse => ({
  type: "sse",
  events,
  headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
  ...(end === undefined ? {} : { end }),
});

const server = createTestServer({
  [gatewayUrl]: { response: anthropicStream(anthropicEvents) },
  [compatUrl]: {
    response: {
      type: "sse",
      events: eventsOf("providers/openai/stream.sse"),
      headers: { "cf-aig-provider": "openai", "cf-aig-model": "gpt-4o-mini" },
    },
  },
});

async function collectDeltas(stream: AsyncIterable<ChatDelta>): Promise<ChatDelta[]> {
  const deltas: ChatDelta[] = [];
  for await (const delta of stream) deltas.push(delta);
  return deltas;
}

describe("client.stream", () => {
  it("yields text deltas, then resolves the same result chat gives", async () => {
    const { client, recorder } = testClient();
    const stream = client.stream({ route: "default", messages });
    const deltas = await collectDeltas(stream);
    const result = await stream.result;

    const text = deltas.flatMap((delta) => (delta.type === "text" ? [delta.text] : [])).join("");
    expect(text).toBe(fixtureAnswer);
    expect(deltas.filter((delta) => delta.type !== "text")).toStrictEqual([
      { type: "usage", usage: { tokensIn: 31 } },
      { type: "finish", reason: "stop" },
      { type: "usage", usage: { tokensOut: 14 } },
    ]);
    expect(result).toMatchObject({
      text: fixtureAnswer,
      usage: { tokensIn: 31, tokensOut: 14 },
      finishReason: "stop",
      served: { index: 0, provider: "anthropic", cached: false, attempts: 1 },
    });
    expect((server.calls[0]!.body as { query: { stream?: boolean } }[])[0]!.query.stream).toBe(
      true,
    );
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ ok: true, streamed: true, step: 0, tokensOut: 14 });
  });

  it("collect() reads the stream without iterating", async () => {
    const { client } = testClient();
    const result = await client.stream({ route: "default", messages }).collect();
    expect(result.text).toBe(fixtureAnswer);
  });

  it("streams a dynamic route in OpenAI's format and maps the served step", async () => {
    const { client, recorder } = testClient({ mode: "dynamic" });
    const result = await client.stream({ route: "default", messages }).collect();
    expect(result).toMatchObject({
      text: fixtureAnswer,
      usage: { tokensIn: 38, tokensOut: 11 },
      served: { index: 1, provider: "openai" },
    });
    expect(server.calls[0]!.body).toMatchObject({
      model: "dynamic/default",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(recorder.events[0]).toMatchObject({ mode: "dynamic", streamed: true, ok: true });
  });

  it("accepts an answer that ends after the provider's finish reason, without its end marker", async () => {
    server.urls[gatewayUrl]!.response = anthropicStream(withoutEnd);
    const { client, recorder } = testClient();
    const result = await client.stream({ route: "default", messages }).collect();
    expect(result).toMatchObject({ text: fixtureAnswer, finishReason: "stop" });
    expect(recorder.events[0]).toMatchObject({ ok: true, step: 0 });
    expect(server.calls).toHaveLength(1);
  });

  it("skips an event that is not JSON and reads on", async () => {
    server.urls[gatewayUrl]!.response = anthropicStream([
      ...anthropicEvents.slice(0, 4),
      "event: content_block_delta\ndata: {not json\n\n",
      ...anthropicEvents.slice(4),
    ]);
    const { client, recorder } = testClient();
    const result = await client.stream({ route: "default", messages }).collect();
    expect(result.text).toBe(fixtureAnswer);
    expect(recorder.events[0]).toMatchObject({ ok: true });
    expect(recorder.events[0]?.failedSteps).toBeUndefined();
  });

  it("retries before the first byte: a 503 is followed by another attempt", async () => {
    server.urls[gatewayUrl]!.response = [
      { type: "error", status: 503, body: "upstream unavailable" },
      anthropicStream(anthropicEvents),
    ];
    const { client, waits } = testClient();
    const result = await client.stream({ route: "default", messages }).collect();
    expect(result.served.attempts).toBe(2);
    expect(waits).toStrictEqual([250]);
  });

  it("aborts mid-stream when the signal fires", async () => {
    server.urls[gatewayUrl]!.response = anthropicStream(anthropicEvents.slice(0, 4), "stall");
    const controller = new AbortController();
    const { client, recorder } = testClient();
    const stream = client.stream({ route: "default", messages, signal: controller.signal });
    const error = await rejectionOf(
      (async () => {
        for await (const delta of stream) if (delta.type === "text") controller.abort();
      })(),
    );
    expect(AbortedError.isInstance(error)).toBe(true);
    await expect(stream.result).rejects.toSatisfy((error) => AbortedError.isInstance(error));
    expect(recorder.events[0]).toMatchObject({ errorCode: "aborted", streamed: true });
  });

  it("ends the call when the consumer stops reading early", async () => {
    server.urls[gatewayUrl]!.response = anthropicStream(anthropicEvents.slice(0, 4), "stall");
    const { client, recorder } = testClient();
    const stream = client.stream({ route: "default", messages });
    for await (const delta of stream) if (delta.type === "text") break;
    await expect(stream.result).rejects.toSatisfy((error) => AbortedError.isInstance(error));
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ errorCode: "aborted", ok: false });
  });

  it("can be iterated only once", async () => {
    const { client } = testClient();
    const stream = client.stream({ route: "default", messages });
    await collectDeltas(stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/read once/);
  });
});

describe("client.stream, answers it cannot place", () => {
  it("fails when the headers name a step that was not sent", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "sse",
      events: anthropicEvents,
      headers: { "cf-aig-step": "9" },
    };
    const { client } = testClient();
    const error = await rejectionOf(client.stream({ route: "default", messages }).collect());
    expect(InvalidResponseError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("cf-aig-step: 9");
  });
});
