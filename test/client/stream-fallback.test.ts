/**
 * `client.stream` when a 2xx stream delivers nothing usable: before the first text the call
 * moves on to the steps after the one that served (the caller has seen nothing); after it, the
 * call fails (the caller has seen part of an answer).
 */

import { describe, expect, it } from "vitest";
import { AllStepsFailedError, IncompleteStreamError } from "../../src/client/index.ts";
import { createTestServer, type TestResponse } from "../helpers/test-server.ts";
import {
  eventsOf,
  fixtureAnswer,
  gatewayUrl,
  messages,
  rejectionOf,
  servedHeaders,
  testClient,
} from "./helpers.ts";

const anthropicEvents = eventsOf("providers/anthropic/stream.sse");
const anthropicHeaders = servedHeaders(0, "anthropic", "claude-sonnet-4-5");
/** Step 1 of the route (openai), first in the chain the fallback attempt sends. */
const openaiAnswer: TestResponse = {
  type: "sse",
  events: eventsOf("providers/openai/stream.sse"),
  headers: servedHeaders(0, "openai", "gpt-4o-mini"),
};

const server = createTestServer({ [gatewayUrl]: { response: openaiAnswer } });

function sentProviders(callIndex: number): string[] {
  return (server.calls[callIndex]!.body as { provider: string }[]).map((step) => step.provider);
}

/**
 * The harness's fetch, but the answer's connection is cut after its body (the harness's own
 * `cut` can overtake events still buffered) and only once `gate` settles, so the caller has
 * read the first text when the stream breaks.
 */
function fetchCutAfter(gate: Promise<void>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const text = await response.text();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
      },
      async pull(controller) {
        await gate;
        controller.error(new TypeError("terminated: connection cut by the test"));
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

const unusable: [string, TestResponse][] = [
  ["an empty stream", { type: "sse", events: [], headers: anthropicHeaders }],
  [
    "a body that is not SSE",
    { type: "text", body: "<html>502 Bad Gateway</html>", headers: anthropicHeaders },
  ],
  [
    "an event that is not JSON before any text",
    {
      type: "sse",
      events: ["event: message_start\ndata: {not json\n\n", ...anthropicEvents],
      headers: anthropicHeaders,
    },
  ],
  [
    "a stream cut before its first text",
    { type: "sse", events: anthropicEvents.slice(0, 3), headers: anthropicHeaders, end: "cut" },
  ],
];

describe("client.stream, a 200 that delivered nothing usable", () => {
  it.each(unusable)("falls back at once to the next step after %s", async (_, broken) => {
    server.urls[gatewayUrl]!.response = [broken, openaiAnswer];
    const { client, recorder, waits } = testClient();
    const stream = client.stream({ route: "default", messages });
    let text = "";
    for await (const delta of stream) if (delta.type === "text") text += delta.text;
    const result = await stream.result;

    expect(text).toBe(fixtureAnswer);
    expect(result).toMatchObject({
      text: fixtureAnswer,
      served: { index: 1, provider: "openai", attempts: 2 },
    });
    expect(server.calls).toHaveLength(2);
    expect(sentProviders(0)).toStrictEqual(["anthropic", "openai", "workers-ai"]);
    expect(sentProviders(1)).toStrictEqual(["openai", "workers-ai"]);
    expect(waits).toStrictEqual([]);
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ ok: true, streamed: true, step: 1, attempts: 2 });
    expect(client.health().anthropic).toMatchObject({ consecutiveFailures: 1 });
  });

  it("fails with IncompleteStreamError when the stream is cut after the caller saw text", async () => {
    let sawText!: () => void;
    const gate = new Promise<void>((resolve) => {
      sawText = resolve;
    });
    server.urls[gatewayUrl]!.response = {
      type: "sse",
      events: anthropicEvents.slice(0, 4), // up to the first text delta, "Rome"
      headers: anthropicHeaders,
    };
    const { client, recorder } = testClient({ fetch: fetchCutAfter(gate) });
    const stream = client.stream({ route: "default", messages });
    const seen: string[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const delta of stream) {
          if (delta.type !== "text") continue;
          seen.push(delta.text);
          sawText();
        }
      })(),
    );

    expect(seen).toStrictEqual(["Rome"]);
    expect(IncompleteStreamError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      receivedCharacters: 4,
      step: { index: 0, provider: "anthropic" },
    });
    expect((error as Error).cause).toBeDefined();
    await expect(stream.result).rejects.toBe(error);
    expect(server.calls).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ ok: false, errorCode: "incomplete_stream" });
  });

  it("fails with every step's failure when no step is left to fall back to", async () => {
    const empty = (step: [string, string]): TestResponse => ({
      type: "sse",
      events: [],
      headers: servedHeaders(0, ...step),
    });
    server.urls[gatewayUrl]!.response = [
      empty(["anthropic", "claude-sonnet-4-5"]),
      empty(["openai", "gpt-4o-mini"]),
      empty(["workers-ai", "@cf/meta/llama-3.1-8b-instruct"]),
    ];
    const { client, recorder } = testClient();
    const error = await rejectionOf(client.stream({ route: "default", messages }).collect());
    expect(AllStepsFailedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "all_steps_failed" });
    expect(server.calls.map((_, index) => sentProviders(index).join(","))).toStrictEqual([
      "anthropic,openai,workers-ai",
      "openai,workers-ai",
      "workers-ai",
    ]);
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ ok: false, attempts: 3 });
  });
});
