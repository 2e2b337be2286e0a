/**
 * `client.stream`'s default first-token handling (issue 29): a stream's first step has 5 s from
 * the attempt being sent to its first text, headers included; past it the call goes on with the
 * steps after that one. Fake timers drive the clock; the gateway is a stub whose answers the test
 * releases.
 */
import { describe, expect, it, vi } from "vitest";
import { heldGateway, onFakeTime } from "../helpers/held-gateway.ts";
import { fixtureAnswer, messages, testClient } from "./helpers.ts";

function setup() {
  const stub = heldGateway();
  // The call's clock follows the fake timers.
  const test = testClient({ fetch: stub.fetch, now: () => Date.now() });
  return { ...test, stub };
}

onFakeTime(setup, ["stream"]);

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
    stub.requests[0]!.answer({ silent: true });
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
    const stub = heldGateway();
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
