import { describe, expect, it } from "vitest";
import { AllStepsAtCapError } from "../../src/client/errors.ts";
import type { FetchFunction } from "../../src/client/index.ts";
import {
  createProviderLimits,
  type ProviderLimitsOptions,
  parseDuration,
  readQuota,
} from "../../src/client/limits/provider-limits.ts";
import {
  fixtureJson,
  ManualClock,
  messages,
  rejectionOf,
  servedHeaders,
  testClient,
} from "./helpers.ts";

/** Lets the limits finish reading a copy of the last answer's body. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

const start = Date.parse("2026-05-01T12:00:00.000Z");

/** The providers of each step of each universal request the gateway stub received. */
interface Gateway {
  readonly fetch: FetchFunction;
  readonly sent: string[][];
  /** What the next request gets: served by this provider with these extra headers, or an error. */
  next: (steps: string[]) => Response;
}

const answers: Record<string, readonly [string, Record<string, unknown>]> = {
  anthropic: ["claude-sonnet-4-5", fixtureJson("providers/anthropic/response.json")],
  openai: ["gpt-4o-mini", fixtureJson("providers/openai/response.json")],
  "workers-ai": [
    "@cf/meta/llama-3.1-8b-instruct",
    fixtureJson("providers/workers-ai/response.json"),
  ],
};

/** The gateway's answer from the first step sent, with `extra` headers. */
function served(steps: string[], extra: Record<string, string> = {}, status = 200): Response {
  const provider = steps[0]!;
  const [model, body] = answers[provider]!;
  return new Response(JSON.stringify(status === 200 ? body : { error: "rate limited" }), {
    status,
    headers: { "content-type": "application/json", ...servedHeaders(0, provider, model, extra) },
  });
}

function gateway(): Gateway {
  const stub: Gateway = {
    sent: [],
    next: (steps) => served(steps),
    fetch: async (_url, init) => {
      const steps = (JSON.parse(String(init?.body)) as { provider: string }[]).map(
        (step) => step.provider,
      );
      stub.sent.push(steps);
      return stub.next(steps);
    },
  };
  return stub;
}

describe("reading quota headers", () => {
  it("reads OpenAI-style counts and Go-style reset durations", () => {
    const headers = new Headers({
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "6m0s",
      "x-ratelimit-remaining-tokens": "1200",
      "x-ratelimit-reset-tokens": "1m2.5s",
    });
    expect(readQuota(headers, start)).toEqual({
      requestsRemaining: 0,
      requestsResetAt: start + 360_000,
      tokensRemaining: 1200,
      tokensResetAt: start + 62_500,
      retryAt: null,
    });
    expect(parseDuration("20ms")).toBe(20);
    expect(parseDuration("2")).toBe(2000);
    expect(parseDuration("soon")).toBeNull();
  });

  it("reads Anthropic's counts with RFC 3339 resets, the lowest token count winning", () => {
    const headers = new Headers({
      "anthropic-ratelimit-requests-remaining": "49",
      "anthropic-ratelimit-requests-reset": "2026-05-01T12:00:30Z",
      "anthropic-ratelimit-input-tokens-remaining": "0",
      "anthropic-ratelimit-input-tokens-reset": "2026-05-01T12:00:10Z",
      "anthropic-ratelimit-output-tokens-remaining": "8000",
      "anthropic-ratelimit-output-tokens-reset": "2026-05-01T12:00:05Z",
    });
    expect(readQuota(headers, start)).toEqual({
      requestsRemaining: 49,
      requestsResetAt: start + 30_000,
      tokensRemaining: 0,
      tokensResetAt: start + 10_000,
      retryAt: null,
    });
  });

  it("reads retry-after in seconds, as an HTTP date, and retry-after-ms", () => {
    // Every format is held by test/wire/rate-limit-headers.test.ts; the client's entry exports it.
    const retryAt = (headers: Record<string, string>) =>
      readQuota(new Headers(headers), start)?.retryAt;
    expect(retryAt({ "retry-after": "7" })).toBe(start + 7000);
    expect(retryAt({ "retry-after": "Fri, 01 May 2026 12:01:00 GMT" })).toBe(start + 60_000);
    expect(retryAt({ "retry-after-ms": "250" })).toBe(start + 250);
    expect(readQuota(new Headers(), start)).toBeNull();
  });
});

describe("provider limits in the client", () => {
  function setup(caps?: ProviderLimitsOptions["caps"]) {
    const clock = new ManualClock();
    const stub = gateway();
    const limits = createProviderLimits({ caps, now: clock.now });
    const test = testClient({ fetch: stub.fetch, now: clock.now, limits });
    return { ...test, clock, stub, limits };
  }

  it("skips a step whose provider published no requests left until its reset, and records the skip", async () => {
    const { client, clock, stub, recorder } = setup();
    stub.next = (steps) =>
      served(steps, { "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20s" });
    await client.chat({ route: "default", messages });
    stub.next = (steps) => served(steps);

    const second = await client.chat({ route: "default", messages });
    // Anthropic said 0 requests left: the second call goes straight to openai.
    expect(stub.sent[1]).toEqual(["openai", "workers-ai"]);
    expect(second.served).toMatchObject({ index: 1, provider: "openai", attempts: 1 });
    expect(recorder.events[1]!.skippedSteps).toEqual([
      { step: 0, provider: "anthropic", model: "claude-sonnet-4-5", reason: "requests_at_cap" },
    ]);
    expect(recorder.events[1]!.failedSteps).toBeUndefined();

    // After the reset, anthropic is sent again.
    clock.advance(20_000);
    await client.chat({ route: "default", messages });
    expect(stub.sent[2]).toEqual(["anthropic", "openai", "workers-ai"]);
    expect(recorder.events[2]!.skippedSteps).toEqual([]);
  });

  it("honours a 429's retry-after: the step is skipped until then", async () => {
    const { client, clock, stub, recorder } = setup();
    // The chain's every step failed; the gateway answers the last step's 429.
    stub.next = () =>
      new Response(JSON.stringify({ error: "slow down" }), {
        status: 429,
        headers: {
          "content-type": "application/json",
          ...servedHeaders(2, "workers-ai", "@cf/meta/llama-3.1-8b-instruct", {
            "retry-after": "30",
          }),
        },
      });
    await rejectionOf(client.chat({ route: "default", messages, maxAttempts: 1 }));
    stub.next = (steps) => served(steps);
    clock.advance(10_000);
    await client.chat({ route: "default", messages });
    expect(stub.sent.at(-1)).toEqual(["anthropic", "openai"]);
    expect(recorder.events.at(-1)!.skippedSteps).toEqual([
      {
        step: 2,
        provider: "workers-ai",
        model: "@cf/meta/llama-3.1-8b-instruct",
        reason: "retry_after",
      },
    ]);
    clock.advance(20_000);
    await client.chat({ route: "default", messages });
    expect(stub.sent.at(-1)).toEqual(["anthropic", "openai", "workers-ai"]);
  });

  it("counts a configured rpm cap per provider over the last minute", async () => {
    const { client, clock, stub, recorder } = setup({ anthropic: { rpm: 2 } });
    await client.chat({ route: "default", messages });
    clock.advance(1_000);
    await client.chat({ route: "default", messages });
    clock.advance(1_000);
    const third = await client.chat({ route: "default", messages });
    expect(stub.sent.map((steps) => steps[0])).toEqual(["anthropic", "anthropic", "openai"]);
    expect(third.served.provider).toBe("openai");
    expect(recorder.events[2]!.skippedSteps).toEqual([
      { step: 0, provider: "anthropic", model: "claude-sonnet-4-5", reason: "rpm_cap" },
    ]);
    // A minute after the first request, one slot is free again.
    clock.advance(58_000);
    await client.chat({ route: "default", messages });
    expect(stub.sent[3]![0]).toBe("anthropic");
  });

  it("counts a configured tpm cap with the tokens each answer reports", async () => {
    // The anthropic fixture reports 31 + 14 tokens: a cap of 60 is spent by the second answer.
    const { client, stub, recorder, limits } = setup({ anthropic: { tpm: 60 } });
    await client.chat({ route: "default", messages });
    await flush();
    expect(limits.status()).toContainEqual(
      expect.objectContaining({ key: "anthropic", requestsThisMinute: 1, tokensThisMinute: 45 }),
    );
    await client.chat({ route: "default", messages });
    await flush();
    await client.chat({ route: "default", messages });
    expect(stub.sent.map((steps) => steps[0])).toEqual(["anthropic", "anthropic", "openai"]);
    expect(recorder.events[2]!.skippedSteps).toEqual([
      { step: 0, provider: "anthropic", model: "claude-sonnet-4-5", reason: "tpm_cap" },
    ]);
  });

  it("ends the call without a request when every step is at its cap", async () => {
    const { client, stub, recorder } = setup();
    stub.next = (steps) =>
      served(steps, { "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "5s" });
    // Each call uses up the first step it sends.
    for (let call = 0; call < 3; call++) await client.chat({ route: "default", messages });
    const error = await rejectionOf(client.chat({ route: "default", messages }));
    expect(AllStepsAtCapError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "all_steps_at_cap",
      isRetryable: true,
      retryAfterMs: 5000,
    });
    expect(stub.sent).toHaveLength(3);
    expect(recorder.events[3]).toMatchObject({
      ok: false,
      errorCode: "all_steps_at_cap",
      attempts: 0,
    });
    expect(recorder.events[3]!.skippedSteps!.map((skip) => skip.step)).toEqual([0, 1, 2]);
  });

  it("leaves a dynamic call's steps alone: the gateway runs the chain", async () => {
    const { client, stub } = setup({ anthropic: { rpm: 1 } });
    await client.chat({ route: "default", messages });
    const fetched: string[] = [];
    // The compat endpoint answers in OpenAI's shape, whichever provider served.
    const dynamicFetch: FetchFunction = async (url) => {
      fetched.push(String(url));
      return new Response(JSON.stringify(answers.openai![1]), {
        headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
      });
    };
    const dynamic = testClient({
      fetch: dynamicFetch,
      mode: "dynamic",
      limits: createProviderLimits({ caps: { anthropic: { rpm: 1 } } }),
    });
    await dynamic.client.chat({ route: "default", messages });
    const answer = await dynamic.client.chat({ route: "default", messages });
    expect(answer.served.provider).toBe("anthropic");
    expect(fetched).toEqual([
      expect.stringMatching(/compat\/chat\/completions$/),
      expect.stringMatching(/compat\/chat\/completions$/),
    ]);
    expect(dynamic.recorder.events[1]!.skippedSteps).toBeUndefined();
    expect(stub.sent).toHaveLength(1);
  });

  it("refuses a cap that is not a whole number of at least 1, naming the fix", () => {
    expect(() => createProviderLimits({ caps: { openai: { rpm: 0 } } })).toThrow(
      /caps\["openai"\]\.rpm must be a whole number of at least 1.*leave it out/,
    );
  });
});
