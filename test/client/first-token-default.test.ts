/**
 * `client.stream`'s default first-token handling (issue 29): a stream's first step has 5 s from
 * the attempt being sent to its first text, headers included; past it the call goes on with the
 * steps after that one. Fake timers drive the clock; the gateway is a stub whose answers the test
 * releases.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { FetchFunction } from "../../src/client/index.ts";
import { fixtureAnswer, fixtureText, messages, servedHeaders, testClient } from "./helpers.ts";

/** One request the stub holds. */
interface Pending {
  readonly steps: string[];
  readonly signal: AbortSignal | undefined;
  /** Answers with its first step's stream; `silent`: headers only, then nothing. */
  answer(silent?: boolean): void;
}

const models: Record<string, string> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-4o-mini",
  "workers-ai": "@cf/meta/llama-3.1-8b-instruct",
};

function gateway() {
  const requests: Pending[] = [];
  const fetch: FetchFunction = (_url, init) =>
    new Promise<Response>((resolve, reject) => {
      const steps = (JSON.parse(String(init?.body)) as { provider: string }[]).map(
        (step) => step.provider,
      );
      const signal = init?.signal ?? undefined;
      signal?.addEventListener("abort", () => reject(signal.reason));
      requests.push({
        steps,
        signal,
        answer(silent = false) {
          const provider = steps[0]!;
          const text = fixtureText(`providers/${provider}/stream.sse`);
          const body = silent
            ? new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) })
            : text;
          resolve(
            new Response(body, {
              headers: {
                "content-type": "text/event-stream",
                ...servedHeaders(0, provider, models[provider]!),
              },
            }),
          );
        },
      });
    });
  return { requests, fetch };
}

function setup() {
  const stub = gateway();
  // The call's clock follows the fake timers.
  const test = testClient({ fetch: stub.fetch, now: () => Date.now() });
  return { ...test, stub };
}

beforeAll(async () => {
  // What a stream loads on first use loads now, on real time: the fake timers only move time.
  const { client, stub } = setup();
  const stream = client.stream({ route: "default", messages }).collect();
  await vi.waitFor(() => expect(stub.requests).toHaveLength(1));
  stub.requests[0]!.answer();
  await stream;
});

beforeEach(() => {
  vi.useFakeTimers({ now: Date.parse("2026-05-01T12:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("client.stream's default first-token timeout", () => {
  it("gives up on a first step that sends no headers within 5 s and goes on with the steps after it", async () => {
    const { client, stub, recorder } = setup();
    const result = client.stream({ route: "default", messages }).collect();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(stub.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(stub.requests[0]!.signal?.aborted).toBe(true);
    expect(stub.requests.map((request) => request.steps)).toEqual([
      ["anthropic", "openai", "workers-ai"],
      ["openai", "workers-ai"],
    ]);
    stub.requests[1]!.answer();
    const answer = await result;
    expect(answer.text).toBe(fixtureAnswer);
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", attempts: 2 });
    expect(recorder.events[0]?.failedSteps).toMatchObject([
      { step: 0, provider: "anthropic", errorCode: "timeout", at: "request" },
    ]);
  });

  it("counts the 5 s from sending the attempt, not from the headers", async () => {
    const { client, stub, recorder } = setup();
    const result = client.stream({ route: "default", messages }).collect();
    await vi.advanceTimersByTimeAsync(2_000);
    // Headers after 2 s, then silence: the first text is due 3 s later, not 5 s.
    stub.requests[0]!.answer(true);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(stub.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(stub.requests.map((request) => request.steps)).toEqual([
      ["anthropic", "openai", "workers-ai"],
      ["openai", "workers-ai"],
    ]);
    stub.requests[1]!.answer();
    expect((await result).served).toMatchObject({ index: 1, provider: "openai" });
    expect(recorder.events[0]?.failedSteps).toMatchObject([
      { step: 0, errorCode: "timeout", at: "stream" },
    ]);
  });

  it("waits longer for a step that sets its own firstTokenTimeoutMs", async () => {
    const stub = gateway();
    const { client } = testClient({
      fetch: stub.fetch,
      now: () => Date.now(),
      routes: {
        thinking: [
          { provider: "anthropic", model: "claude-sonnet-4-5", firstTokenTimeoutMs: 60_000 },
          { provider: "openai", model: "gpt-4o-mini" },
        ],
      },
    });
    const result = client.stream({ route: "thinking", messages }).collect();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(stub.requests).toHaveLength(1);
    stub.requests[0]!.answer();
    expect((await result).served).toMatchObject({ index: 0, provider: "anthropic" });
  });
});
