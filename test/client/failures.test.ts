import { describe, expect, it, onTestFinished, vi } from "vitest";
import {
  AbortedError,
  AllStepsFailedError,
  type ApiCallError,
  AuthenticationError,
  DeadlineExceededError,
  InvalidResponseError,
  NetworkError,
  RateLimitedError,
  TimeoutError,
} from "../../src/client/errors.ts";
import { createTestServer, type TestResponse } from "../helpers/test-server.ts";
import {
  fixtureJson,
  gatewayUrl,
  messages,
  rejectionOf,
  servedHeaders,
  testClient,
} from "./helpers.ts";

const openAiAnswer: TestResponse = {
  type: "json",
  body: fixtureJson("providers/openai/response.json"),
  headers: servedHeaders(1, "openai", "gpt-4o-mini"),
};

/** The gateway's answer when every step failed: the last step's error, with its index. */
const allFailed: TestResponse = {
  type: "error",
  status: 503,
  body: fixtureJson("client/workers-ai-error-503.json"),
  headers: servedHeaders(2, "workers-ai", "@cf/meta/llama-3.1-8b-instruct"),
};

const server = createTestServer({ [gatewayUrl]: { response: openAiAnswer } });

function sentProviders(callIndex: number): string[] {
  return (server.calls[callIndex]!.body as { provider: string }[]).map((step) => step.provider);
}

describe("when every step fails", () => {
  it("throws AllStepsFailedError listing each step, with the last step's status and error", async () => {
    server.urls[gatewayUrl]!.response = allFailed;
    const { client, recorder } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages, maxAttempts: 1 }));

    expect(AllStepsFailedError.isInstance(error)).toBe(true);
    const failure = error as AllStepsFailedError;
    expect(failure.code).toBe("all_steps_failed");
    expect(failure.isRetryable).toBe(true);
    expect(
      failure.steps.map(({ index, provider, status, error }) => ({
        index,
        provider,
        status,
        code: error?.code ?? null,
      })),
    ).toStrictEqual([
      { index: 0, provider: "anthropic", status: null, code: null },
      { index: 1, provider: "openai", status: null, code: null },
      { index: 2, provider: "workers-ai", status: 503, code: "api_call_error" },
    ]);
    expect(failure.message).toContain("Capacity temporarily exceeded");
    expect((failure.cause as ApiCallError).logId).toBe("01JLOG2ABCDEFGHJKMNPQRSTV");
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({
      ok: false,
      errorCode: "all_steps_failed",
      step: null,
      provider: "workers-ai",
      status: 503,
      attempts: 1,
      tokensIn: null,
      cost: null,
    });
  });

  it("retries the whole chain with doubling backoff, at most maxAttempts times", async () => {
    server.urls[gatewayUrl]!.response = allFailed;
    const { client, waits, recorder } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages }));
    expect(AllStepsFailedError.isInstance(error)).toBe(true);
    expect(server.calls).toHaveLength(3);
    expect(waits).toStrictEqual([250, 500]);
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ attempts: 3, errorCode: "all_steps_failed" });
  });

  it("recovers when a retry succeeds", async () => {
    server.urls[gatewayUrl]!.response = [allFailed, openAiAnswer];
    const { client, waits } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", attempts: 2 });
    expect(waits).toStrictEqual([250]);
  });

  it("does not wait for a retry that cannot finish before the deadline", async () => {
    // The deadline's timer is fake: a busy machine cannot end the call at its deadline before
    // the first answer arrives; the client's clock (injected) says how much time is left.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    server.urls[gatewayUrl]!.response = allFailed;
    const { client, waits } = testClient({ retryDelayMs: 1_000 });
    const error = await rejectionOf(client.chat({ route: "default", messages, deadlineMs: 500 }));
    expect(AllStepsFailedError.isInstance(error)).toBe(true);
    expect(waits).toStrictEqual([]);
    expect(server.calls).toHaveLength(1);
  });
});

describe("gateway errors", () => {
  it("throws AuthenticationError for the gateway's 401, without retrying", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "error",
      status: 401,
      body: fixtureJson("client/gateway-error-401.json"),
    };
    const { client, recorder } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages }));
    expect(AuthenticationError.isInstance(error)).toBe(true);
    const authentication = error as AuthenticationError;
    expect(authentication).toMatchObject({
      code: "authentication_failed",
      status: 401,
      errorType: "2009",
      isRetryable: false,
      step: undefined,
    });
    expect(authentication.message).toContain("gatewayToken");
    expect(server.calls).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ errorCode: "authentication_failed", status: 401 });
  });

  it("waits Retry-After after the gateway's 429, then retries", async () => {
    server.urls[gatewayUrl]!.response = [
      {
        type: "error",
        status: 429,
        body: fixtureJson("client/gateway-error-429.json"),
        headers: { "retry-after": "2" },
      },
      openAiAnswer,
    ];
    const { client, waits } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served.attempts).toBe(2);
    expect(waits).toStrictEqual([2_000]);
  });

  it("throws RateLimitedError with retryAfterMs when the retries run out", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "error",
      status: 429,
      body: fixtureJson("client/gateway-error-429.json"),
      headers: { "retry-after": "1" },
    };
    const { client } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages, maxAttempts: 2 }));
    expect(RateLimitedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "rate_limited", retryAfterMs: 1_000, errorType: "2003" });
  });

  it("does not send a step that answered 429 again before its Retry-After", async () => {
    const anthropic429: TestResponse = {
      type: "error",
      status: 429,
      body: fixtureJson("providers/anthropic/error-429.json"),
      headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5", { "retry-after": "2" }),
    };
    server.urls[gatewayUrl]!.response = [anthropic429, allFailed, openAiAnswer];
    const { client, waits } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served.attempts).toBe(3);
    // The steps after it at once; the whole route only once anthropic's 2 s have passed.
    expect(sentProviders(1)).toStrictEqual(["openai", "workers-ai"]);
    expect(sentProviders(2)).toStrictEqual(["anthropic", "openai", "workers-ai"]);
    expect(waits).toStrictEqual([2_000]);
  });

  it("leaves a step out of the call when its Retry-After outlasts the deadline", async () => {
    const anthropic429: TestResponse = {
      type: "error",
      status: 429,
      body: fixtureJson("providers/anthropic/error-429.json"),
      headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5", { "retry-after": "30" }),
    };
    server.urls[gatewayUrl]!.response = [anthropic429, allFailed, openAiAnswer];
    const { client, waits } = testClient();
    const answer = await client.chat({ route: "default", messages, deadlineMs: 10_000 });
    expect(answer.served).toMatchObject({ index: 1, attempts: 3 });
    expect(sentProviders(2)).toStrictEqual(["openai", "workers-ai"]);
    expect(waits).toStrictEqual([250]);
  });

  it("moves on to the steps after a model that refused for context length, without retrying it", async () => {
    server.urls[gatewayUrl]!.response = [
      {
        type: "error",
        status: 400,
        body: fixtureJson("providers/anthropic/error-400-context.json"),
        headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
      },
      { ...openAiAnswer, headers: servedHeaders(0, "openai", "gpt-4o-mini") },
    ];
    const { client, waits, recorder } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", attempts: 2 });
    expect(sentProviders(1)).toStrictEqual(["openai", "workers-ai"]);
    expect(waits).toStrictEqual([]);
    expect(recorder.events[0]?.failedSteps).toStrictEqual([
      {
        step: 0,
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        status: 400,
        errorCode: "api_call_error",
        at: "request",
      },
    ]);
  });

  it.each([
    [
      "a content-filter refusal",
      "content_filter",
      "The response was filtered by the content policy.",
    ],
    ["an invalid request", "invalid_request_error", "temperature must be at most 2."],
  ])("returns %s at once, trying no other step", async (_, code, message) => {
    server.urls[gatewayUrl]!.response = {
      type: "error",
      status: 400,
      body: { error: { message, type: "invalid_request_error", param: null, code } },
      headers: servedHeaders(1, "openai", "gpt-4o-mini"),
    };
    const { client } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages }));
    expect(AllStepsFailedError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({
      code: "api_call_error",
      status: 400,
      isRetryable: false,
      errorType: code,
      step: { index: 1, provider: "openai", model: "gpt-4o-mini" },
    });
    expect(server.calls).toHaveLength(1);
  });
});

describe("malformed answers", () => {
  it("moves on to the steps after one whose body cannot be read", async () => {
    server.urls[gatewayUrl]!.response = [
      {
        type: "text",
        body: "<html><body>502 Bad Gateway</body></html>",
        headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
      },
      {
        type: "json",
        body: fixtureJson("providers/openai/response.json"),
        headers: servedHeaders(0, "openai", "gpt-4o-mini"),
      },
    ];
    const { client, waits, recorder } = testClient();
    const answer = await client.chat({ route: "default", messages });

    const secondChain = server.calls[1]!.body as { provider: string }[];
    expect(secondChain.map((step) => step.provider)).toStrictEqual(["openai", "workers-ai"]);
    expect(answer.served).toMatchObject({ index: 1, provider: "openai", attempts: 2 });
    expect(waits).toStrictEqual([]);
    expect(recorder.events[0]).toMatchObject({ ok: true, step: 1, attempts: 2 });
  });

  it("tries the route again when the last step's body is empty, then fails with every step listed", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "text",
      body: "",
      headers: servedHeaders(2, "workers-ai", "@cf/meta/llama-3.1-8b-instruct"),
    };
    const { client, waits } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages, maxAttempts: 2 }));
    expect(waits).toStrictEqual([250]);
    expect(AllStepsFailedError.isInstance(error)).toBe(true);
    const last = (error as AllStepsFailedError).steps.at(-1)!;
    expect(InvalidResponseError.isInstance(last.error)).toBe(true);
    expect(last.error?.message).toContain("Workers AI answered with an empty body");
    expect(server.calls).toHaveLength(2);
  });

  it("rejects an answer whose headers name a step that was not sent", async () => {
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/openai/response.json"),
      headers: { "cf-aig-step": "7" },
    };
    const { client } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages }));
    expect(InvalidResponseError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("cf-aig-step: 7");
  });
});

describe("transport failures", () => {
  it("retries a network error, then succeeds", async () => {
    server.urls[gatewayUrl]!.response = [{ type: "network-error" }, openAiAnswer];
    const { client, waits } = testClient();
    const answer = await client.chat({ route: "default", messages });
    expect(answer.served.attempts).toBe(2);
    expect(waits).toStrictEqual([250]);
  });

  it("throws NetworkError when every attempt fails to connect", async () => {
    server.urls[gatewayUrl]!.response = { type: "network-error" };
    const { client, recorder } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages }));
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(recorder.events[0]).toMatchObject({
      status: 0,
      errorCode: "network_error",
      attempts: 3,
    });
  });

  it("gives up on a silent attempt after attemptTimeoutMs and tries again", async () => {
    // The attempt timeout runs on fake timers, so the second attempt has all the time it needs
    // however busy the machine; only the first, silent one is timed out, when the test says so.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    server.urls[gatewayUrl]!.response = [{ type: "hang" }, openAiAnswer];
    const { client } = testClient({ attemptTimeoutMs: 30 });
    const call = client.chat({ route: "default", messages });
    await expect.poll(() => server.calls.length).toBe(1);
    vi.advanceTimersByTime(30);
    const answer = await call;
    expect(answer.served.attempts).toBe(2);
  });

  it("throws TimeoutError when every attempt times out", async () => {
    server.urls[gatewayUrl]!.response = { type: "hang" };
    const { client } = testClient({ attemptTimeoutMs: 20 });
    const error = await rejectionOf(client.chat({ route: "default", messages, maxAttempts: 2 }));
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "timeout", timeoutMs: 20 });
  });

  it("tells each attempt's timeout apart: a network failure after a timed-out attempt is a NetworkError", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    server.urls[gatewayUrl]!.response = [{ type: "hang" }, { type: "network-error" }];
    const { client, recorder } = testClient({ attemptTimeoutMs: 30 });
    const call = rejectionOf(client.chat({ route: "default", messages, maxAttempts: 2 }));
    await expect.poll(() => server.calls.length).toBe(1);
    vi.advanceTimersByTime(30);
    const error = await call;
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(TimeoutError.isInstance(error)).toBe(false);
    expect(recorder.events[0]).toMatchObject({ errorCode: "network_error", attempts: 2 });
  });

  it("stops at the call's deadline with DeadlineExceededError", async () => {
    server.urls[gatewayUrl]!.response = { type: "hang" };
    const { client, recorder } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages, deadlineMs: 40 }));
    expect(DeadlineExceededError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ deadlineMs: 40, attempts: 1 });
    expect(recorder.events[0]).toMatchObject({ errorCode: "deadline_exceeded", ok: false });
  });
});

describe("aborting", () => {
  it("cancels an in-flight request", async () => {
    server.urls[gatewayUrl]!.response = { type: "hang" };
    const { client, recorder } = testClient();
    const controller = new AbortController();
    const call = client.chat({ route: "default", messages, signal: controller.signal });
    await expect.poll(() => server.calls.length).toBe(1);
    controller.abort();
    const error = await rejectionOf(call);
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "aborted", isRetryable: false });
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ errorCode: "aborted", status: 0 });
  });

  it("sends nothing when the signal is already aborted", async () => {
    const { client } = testClient();
    const error = await rejectionOf(
      client.chat({ route: "default", messages, signal: AbortSignal.abort() }),
    );
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(server.calls).toHaveLength(0);
  });

  it("cancels the wait between retries", async () => {
    server.urls[gatewayUrl]!.response = allFailed;
    const controller = new AbortController();
    const { client } = testClient({
      sleep: (_ms, signal) =>
        new Promise((_, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
          controller.abort();
        }),
    });
    const error = await rejectionOf(
      client.chat({ route: "default", messages, signal: controller.signal }),
    );
    expect(AbortedError.isInstance(error)).toBe(true);
    expect(server.calls).toHaveLength(1);
  });
});
