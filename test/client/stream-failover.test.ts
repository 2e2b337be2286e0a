/**
 * `client.stream` when a 2xx stream fails: before its first text the call moves on at once to the
 * steps after the one that served (the caller saw nothing); after it, the call also moves on, and
 * the next answer starts with a `restart` delta (or continues the text shown, with
 * `onStreamBreak: "continue"`), unless the policy is `fail`.
 */

import { describe, expect, it } from "vitest";
import {
  AllStepsFailedError,
  ApiCallError,
  IncompleteStreamError,
  TimeoutError,
} from "../../src/client/errors.ts";
import type { ChatDelta, ChatStream } from "../../src/client/index.ts";
import { createTestServer, type TestResponse } from "../helpers/test-server.ts";
import {
  eventsOf,
  fixtureAnswer,
  gatewayUrl,
  messages,
  rejectionOf,
  routes,
  servedHeaders,
  testClient,
} from "./helpers.ts";

const anthropicEvents = eventsOf("providers/anthropic/stream.sse");
const anthropicHeaders = servedHeaders(0, "anthropic", "claude-sonnet-4-5");
/** Up to and with the first text delta, "Rome". */
const anthropicHead = anthropicEvents.slice(0, 4);
/** Step 1 of the route (openai), first in the chain the next attempt sends. */
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
 * The harness's fetch, but the body of the answers to the calls in `cut` (0-based) breaks after
 * their events, as a dropped connection does.
 */
function fetchCutting(...cut: number[]): typeof fetch {
  let calls = 0;
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!cut.includes(calls++)) return response;
    const text = await response.text();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(new TypeError("terminated: connection cut by the test"));
        else controller.enqueue(new TextEncoder().encode(text));
        sent = true;
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

/** Reads a stream to its end: every delta, and the result (or the error). */
async function readAll(stream: ChatStream): Promise<{ deltas: ChatDelta[]; error?: unknown }> {
  const deltas: ChatDelta[] = [];
  try {
    for await (const delta of stream) deltas.push(delta);
    return { deltas };
  } catch (error) {
    return { deltas, error };
  }
}

/** The text a UI following the deltas would show: restarts drop what they say. */
function shownText(deltas: readonly ChatDelta[]): string {
  let shown = "";
  for (const delta of deltas) {
    if (delta.type === "restart") shown = shown.slice(0, shown.length - delta.discardedChars);
    if (delta.type === "text") shown += delta.text;
  }
  return shown;
}

const unusable: [string, TestResponse][] = [
  ["an empty stream", { type: "sse", events: [], headers: anthropicHeaders }],
  [
    "a body that is not SSE",
    { type: "text", body: "<html>502 Bad Gateway</html>", headers: anthropicHeaders },
  ],
  [
    "a stream cut before its first text",
    { type: "sse", events: anthropicEvents.slice(0, 3), headers: anthropicHeaders, end: "cut" },
  ],
];

describe("client.stream, a 200 that delivered nothing usable", () => {
  it("reports what a broken stream's reported usage cost apart, and nothing when it reported none", async () => {
    // Anthropic's `message_start` reports the prompt's 31 tokens before the stream is cut.
    server.urls[gatewayUrl]!.response = [unusable[2]![1], openaiAnswer];
    const { client, recorder } = testClient();
    const answer = await client.stream({ route: "default", messages }).collect();
    expect(recorder.events[0]).toMatchObject({ ok: true, step: 1, cost: answer.cost });
    expect(recorder.events[0]?.failedAttemptsCost).toBeCloseTo((31 * 3) / 1e6, 12);

    // An empty stream reported nothing: what it cost is not known here (the gateway's logs know).
    server.urls[gatewayUrl]!.response = [unusable[0]![1], openaiAnswer];
    await client.stream({ route: "default", messages }).collect();
    expect(recorder.events[1]).toMatchObject({ ok: true, step: 1 });
    expect(recorder.events[1]).not.toHaveProperty("failedAttemptsCost");
  });

  it.each(unusable)("falls back at once to the next step after %s", async (_, broken) => {
    server.urls[gatewayUrl]!.response = [broken, openaiAnswer];
    const { client, recorder, waits, breaker } = testClient({}, {});
    const { deltas } = await readAll(client.stream({ route: "default", messages }));

    // Nothing reached the caller before the fallback, so nothing is to be discarded.
    expect(deltas.some((delta) => delta.type === "restart")).toBe(false);
    expect(shownText(deltas)).toBe(fixtureAnswer);
    expect(sentProviders(0)).toStrictEqual(["anthropic", "openai", "workers-ai"]);
    expect(sentProviders(1)).toStrictEqual(["openai", "workers-ai"]);
    expect(waits).toStrictEqual([]);
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ ok: true, streamed: true, step: 1, attempts: 2 });
    expect(recorder.events[0]?.failedSteps).toMatchObject([{ step: 0, at: "stream" }]);
    expect(recorder.events[0]?.discardedChars).toBeUndefined();
    expect(breaker?.health()["anthropic/claude-sonnet-4-5"]).toMatchObject({
      consecutiveFailures: 1,
    });
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
    expect(server.calls.map((_, index) => sentProviders(index).join(","))).toStrictEqual([
      "anthropic,openai,workers-ai",
      "openai,workers-ai",
      "workers-ai",
    ]);
    expect(recorder.events[0]).toMatchObject({ ok: false, attempts: 3 });
  });
});

/** Step 0's answer broken after its first text (`Rome`), each way a stream breaks. */
const breaks: [string, string, TestResponse, Parameters<typeof testClient>[0]][] = [
  [
    "the connection is cut",
    "incomplete_stream",
    { type: "sse", events: anthropicHead, headers: anthropicHeaders },
    { fetch: fetchCutting(0) },
  ],
  [
    "it sends an error event",
    "api_call_error",
    {
      type: "sse",
      events: eventsOf("providers/anthropic/stream-error.sse"),
      headers: anthropicHeaders,
    },
    {},
  ],
  [
    "it ends without any completion signal",
    "incomplete_stream",
    { type: "sse", events: anthropicHead, headers: anthropicHeaders },
    {},
  ],
  [
    "it stalls past the idle timeout",
    "timeout",
    { type: "sse", events: anthropicHead, headers: anthropicHeaders, end: "stall" },
    { streamIdleTimeoutMs: 30 },
  ],
  [
    "more than three of its events are not JSON",
    "invalid_response",
    {
      type: "sse",
      events: [...anthropicHead, ...Array(4).fill("data: {oops\n\n"), ...anthropicEvents.slice(4)],
      headers: anthropicHeaders,
    },
    {},
  ],
];

describe("client.stream, a stream that breaks after the caller saw text", () => {
  it.each(breaks)(
    "goes on with the next steps when %s, restarting the answer",
    async (_, code, broken, options) => {
      server.urls[gatewayUrl]!.response = [broken, openaiAnswer];
      const { client, recorder, waits, breaker } = testClient(options, {});
      const stream = client.stream({ route: "default", messages });
      const { deltas, error } = await readAll(stream);
      expect(error).toBeUndefined();

      const restart = deltas.findIndex((delta) => delta.type === "restart");
      expect(deltas[restart]).toStrictEqual({
        type: "restart",
        step: 0,
        reason: code,
        discardedChars: "Rome".length,
      });
      // Before the restart, only the broken answer's text; after it, the whole new answer.
      expect(shownText(deltas.slice(0, restart))).toBe("Rome");
      expect(shownText(deltas)).toBe(fixtureAnswer);
      const result = await stream.result;
      expect(result).toMatchObject({
        text: fixtureAnswer,
        served: { index: 1, provider: "openai" },
      });
      expect(sentProviders(1)).toStrictEqual(["openai", "workers-ai"]);
      expect(waits).toStrictEqual([]);
      expect(recorder.events).toHaveLength(1);
      expect(recorder.events[0]).toMatchObject({
        ok: true,
        step: 1,
        attempts: 2,
        discardedChars: 4,
        failedSteps: [
          {
            step: 0,
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            status: 200,
            errorCode: code,
            at: "mid-stream",
          },
        ],
      });
      // The break counts against that model's circuit, and only its; the step that served succeeded.
      const health = breaker!.health();
      expect(health["anthropic/claude-sonnet-4-5"]).toMatchObject({ consecutiveFailures: 1 });
      expect(health["openai/gpt-4o-mini"]).toMatchObject({ consecutiveFailures: 0 });
      expect(breaker!.state("anthropic", "claude-haiku-4-5")).toBe("closed");
    },
  );

  it("ends the call with the break's error when its policy is fail", async () => {
    server.urls[gatewayUrl]!.response = [
      {
        type: "sse",
        events: eventsOf("providers/anthropic/stream-error.sse"),
        headers: anthropicHeaders,
      },
      openaiAnswer,
    ];
    const { client, recorder } = testClient();
    const stream = client.stream({ route: "default", messages, onStreamBreak: "fail" });
    const { deltas, error } = await readAll(stream);
    expect(shownText(deltas)).toBe("Rome");
    expect(ApiCallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 529, errorType: "overloaded_error", step: { index: 0 } });
    expect(server.calls).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ ok: false, errorCode: "api_call_error" });
  });

  it("takes the route's policy when the call sets none", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "sse",
      events: anthropicHead,
      headers: anthropicHeaders,
    };
    const { client } = testClient({
      routes: { strict: { ...routes.default!, onStreamBreak: "fail" } },
    });
    const error = await rejectionOf(client.stream({ route: "strict", messages }).collect());
    expect(IncompleteStreamError.isInstance(error)).toBe(true);
    expect(server.calls).toHaveLength(1);
  });

  it("tries the route again when the last step breaks, and restarts once more", async () => {
    server.urls[gatewayUrl]!.response = [
      {
        type: "sse",
        events: eventsOf("providers/openai/stream.sse").slice(0, 3),
        headers: servedHeaders(1, "openai", "gpt-4o-mini"),
      },
      { type: "sse", events: anthropicEvents, headers: anthropicHeaders },
    ];
    const { client, waits, recorder } = testClient({
      routes: { pair: [routes.default!.steps[0]!, routes.default!.steps[1]!] },
    });
    const { deltas } = await readAll(client.stream({ route: "pair", messages }));
    expect(deltas.find((delta) => delta.type === "restart")).toMatchObject({
      step: 1,
      discardedChars: "Rome — la".length,
    });
    expect(shownText(deltas)).toBe(fixtureAnswer);
    expect(sentProviders(1)).toStrictEqual(["anthropic", "openai"]);
    expect(waits).toStrictEqual([250]);
    expect(recorder.events[0]?.failedSteps?.map(({ step, at }) => `${step} ${at}`)).toStrictEqual([
      "0 request",
      "1 mid-stream",
    ]);
    expect(recorder.events[0]).toMatchObject({ ok: true, step: 0, attempts: 2 });
  });
});

describe("client.stream, timeouts that fit streaming", () => {
  it("moves on when no text comes within the first-token timeout, with nothing to restart", async () => {
    server.urls[gatewayUrl]!.response = [
      { type: "sse", events: anthropicEvents.slice(0, 3), headers: anthropicHeaders, end: "stall" },
      openaiAnswer,
    ];
    const { client, recorder } = testClient({ firstTokenTimeoutMs: 30 });
    const { deltas } = await readAll(client.stream({ route: "default", messages }));
    expect(deltas.some((delta) => delta.type === "restart")).toBe(false);
    expect(shownText(deltas)).toBe(fixtureAnswer);
    expect(recorder.events[0]?.failedSteps).toMatchObject([
      { step: 0, errorCode: "timeout", at: "stream" },
    ]);
  });

  it("takes each step's own first-token and idle timeouts over the client's", async () => {
    const stepRoutes = {
      slow: [
        { provider: "anthropic", model: "claude-sonnet-4-5", firstTokenTimeoutMs: 30 },
        { provider: "openai", model: "gpt-4o-mini" },
      ],
    };
    server.urls[gatewayUrl]!.response = [
      { type: "sse", events: anthropicEvents.slice(0, 3), headers: anthropicHeaders, end: "stall" },
      openaiAnswer,
    ];
    // The client waits a minute for a first token; the step, 30 ms.
    const { client } = testClient({ routes: stepRoutes, firstTokenTimeoutMs: 60_000 });
    const result = await client.stream({ route: "slow", messages }).collect();
    expect(result.served).toMatchObject({ index: 1, provider: "openai" });
  });

  it("fails with a first-token timeout error when no step is left", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "sse",
      events: [],
      headers: servedHeaders(0, "openai", "gpt-4o-mini"),
      end: "stall",
    };
    const { client } = testClient({
      firstTokenTimeoutMs: 20,
      routes: { one: [{ provider: "openai", model: "gpt-4o-mini" }] },
    });
    const error = await rejectionOf(
      client.stream({ route: "one", messages, maxAttempts: 1 }).collect(),
    );
    expect(AllStepsFailedError.isInstance(error)).toBe(true);
    const cause = (error as AllStepsFailedError).steps[0]?.error;
    expect(TimeoutError.isInstance(cause)).toBe(true);
    expect(cause).toMatchObject({ phase: "first-token", timeoutMs: 20 });
  });
});

/** An Anthropic stream whose text comes in the given pieces, complete. */
function anthropicAnswer(pieces: readonly string[], position: number): TestResponse {
  const event = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  return {
    type: "sse",
    events: [
      event("message_start", { type: "message_start", message: { usage: { input_tokens: 9 } } }),
      ...pieces.map((text) =>
        event("content_block_delta", {
          type: "content_block_delta",
          delta: { type: "text_delta", text },
        }),
      ),
      event("message_delta", {
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { output_tokens: 5 },
      }),
      event("message_stop", { type: "message_stop" }),
    ],
    headers: servedHeaders(position, "anthropic", "claude-sonnet-4-5"),
  };
}

describe("client.stream, continuing a broken answer", () => {
  /** OpenAI first, then Anthropic, which accepts an assistant prefill. */
  const relay = {
    relay: [
      { provider: "openai", model: "gpt-4o-mini" },
      { provider: "anthropic", model: "claude-sonnet-4-5" },
    ],
  };
  /** OpenAI's answer broken after "Rome — la". */
  const brokenOpenAi: TestResponse = {
    type: "sse",
    events: eventsOf("providers/openai/stream.sse").slice(0, 3),
    headers: servedHeaders(0, "openai", "gpt-4o-mini"),
  };

  it("asks the next step to continue the text shown, and keeps it", async () => {
    server.urls[gatewayUrl]!.response = [
      brokenOpenAi,
      anthropicAnswer([" Città", " Eterna", ". ☀️"], 0),
    ];
    const { client, recorder } = testClient({ routes: relay });
    const stream = client.stream({ route: "relay", messages, onStreamBreak: "continue" });
    const { deltas } = await readAll(stream);

    const sent = server.calls[1]!.body as { provider: string; query: { messages: unknown[] } }[];
    expect(sent.map((step) => step.provider)).toStrictEqual(["anthropic"]);
    expect(sent[0]!.query.messages.at(-1)).toStrictEqual({
      role: "assistant",
      content: "Rome — la",
    });
    // Nothing is discarded: the continuation follows the text shown.
    expect(deltas.filter((delta) => delta.type === "restart")).toStrictEqual([]);
    expect(shownText(deltas)).toBe(fixtureAnswer);
    expect(await stream.result).toMatchObject({
      text: fixtureAnswer,
      served: { index: 1, provider: "anthropic" },
    });
    expect(recorder.events[0]?.discardedChars).toBeUndefined();
  });

  it("restarts instead on a step that takes no prefill", async () => {
    server.urls[gatewayUrl]!.response = [
      { type: "sse", events: anthropicHead, headers: anthropicHeaders },
      openaiAnswer,
    ];
    const { client } = testClient();
    const stream = client.stream({ route: "default", messages, onStreamBreak: "continue" });
    const { deltas } = await readAll(stream);
    const sent = server.calls[1]!.body as { query: { messages: { role: string }[] } }[];
    expect(sent.every((step) => step.query.messages.at(-1)?.role === "user")).toBe(true);
    expect(deltas.find((delta) => delta.type === "restart")).toMatchObject({ discardedChars: 4 });
    expect(shownText(deltas)).toBe(fixtureAnswer);
  });

  it("restarts without the prefill when the next step refuses it, and never shows the refusal", async () => {
    server.urls[gatewayUrl]!.response = [
      brokenOpenAi,
      {
        type: "error",
        status: 400,
        body: {
          type: "error",
          error: {
            type: "invalid_request_error",
            message: "This model does not support assistant message prefill.",
          },
        },
        headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
      },
      anthropicAnswer(["Rome", " — la Città Eterna. ☀️"], 0),
    ];
    const { client, recorder } = testClient({ routes: relay });
    const stream = client.stream({ route: "relay", messages, onStreamBreak: "continue" });
    const { deltas, error } = await readAll(stream);
    expect(error).toBeUndefined();

    const third = server.calls[2]!.body as { query: { messages: { role: string }[] } }[];
    expect(third[0]!.query.messages.at(-1)?.role).toBe("user");
    expect(deltas.find((delta) => delta.type === "restart")).toMatchObject({
      step: 0,
      discardedChars: "Rome — la".length,
    });
    expect(shownText(deltas)).toBe(fixtureAnswer);
    expect(recorder.events[0]).toMatchObject({ ok: true, step: 1, attempts: 3 });
  });
});
