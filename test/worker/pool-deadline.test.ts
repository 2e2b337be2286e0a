/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * A pool's re-sends keep to the call's time (the follow-up of issues #11 and #14): an app's
 * `cf-aig-request-timeout` bounds the whole call the Worker handles. A re-send with the next key
 * carries only the time that remains, none starts once the time is spent, a `Retry-After` longer
 * than what remains is never waited for, and running out while waiting answers 504
 * `request_timeout` instead of a late answer.
 *
 * Time is the harness clock: the fake gateway moves it while it "works" on an attempt, and answers
 * that should come late are held on promises the test releases after moving the clock past the
 * deadline, so nothing sleeps and nothing depends on the machine's speed.
 */
import { createExecutionContext, reset, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { KvNamespaceLike } from "../../src/worker/index.ts";
import {
  accountId,
  createHarness,
  credentialOf,
  type GatewayCall,
  type Harness,
} from "./harness.ts";

afterEach(async () => {
  await reset();
});

const firstKey = "test-ant-default-key-01";
const secondKey = "test-ant-backup-key-002";
const nativePath = `/v1/${accountId}/chat/anthropic/v1/messages`;
const compatPath = `/v1/${accountId}/chat/compat/chat/completions`;
const compatBody = '{"model":"anthropic/claude-sonnet-4-5","messages":[]}';

/** A promise and the functions that settle it. */
function deferred<Value>() {
  let resolve!: (value: Value) => void;
  const promise = new Promise<Value>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** The provider's 429 (no cf-aig-step, no rate-limit headers: its body says whose it is). */
const rateLimited = (retryAfter = "3600") =>
  new Response('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}', {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": retryAfter },
  });

const served = () =>
  new Response('{"ok":true}', { status: 200, headers: { "content-type": "application/json" } });

/** The key an attempt carried (anthropic's header natively, a bearer token on compat). */
function keyOf(call: GatewayCall): string | undefined {
  return credentialOf("anthropic", call.headers) ?? credentialOf("openai", call.headers);
}

/**
 * A harness whose anthropic pool holds two keys, and an app token. `answer` gets the attempt's
 * number within the call (0: the first key the pool plan picked, 1: the re-send).
 */
async function twoKeyPool(answer: (attempt: number, harness: Harness) => Promise<Response>) {
  let harness: Harness | undefined;
  harness = createHarness({
    gateway: (call) => answer(harness!.gatewayCalls.indexOf(call), harness!),
  });
  await harness.rotate("anthropic", firstKey);
  await harness.advance(1000); // KV takes one write of current:anthropic per second
  await harness.call("PUT", "/keys/anthropic/backup", { body: { key: secondKey } });
  harness.acceptKeys("anthropic", firstKey, secondKey);
  const app = await harness.createApp();
  // The admin calls above never go upstream.
  harness.gatewayCalls.length = 0;
  return { harness, token: app.token };
}

/** The `cf-aig-request-timeout` each attempt carried; every attempt carried another key. */
function timeouts(calls: readonly GatewayCall[]): (string | undefined)[] {
  const keys = calls.map(keyOf);
  expect(new Set(keys).size).toBe(keys.length);
  for (const key of keys) expect([firstKey, secondKey]).toContain(key);
  return calls.map((call) => call.headers["cf-aig-request-timeout"]);
}

describe("a pool's re-send keeps to the call's cf-aig-request-timeout", () => {
  it("compat: the re-send with the next key carries only the time that remains, not a fresh full timeout", async () => {
    const { harness, token } = await twoKeyPool(async (attempt, harness) => {
      if (attempt > 0) return served();
      await harness.advance(700); // the first key's 429 takes 700 ms
      return rateLimited();
    });
    const response = await harness.call("POST", compatPath, {
      token,
      body: compatBody,
      headers: { "cf-aig-request-timeout": "1000" },
    });
    expect(response.status).toBe(200);
    expect(timeouts(harness.gatewayCalls)).toEqual(["1000", "300"]);
  });

  it("the time counts from the call's arrival: what the Worker spends before the first attempt (its KV reads) is taken off", async () => {
    const { harness, token } = await twoKeyPool(async () => served());
    const kv = harness.env.KEYS;
    // This location's KV answers the app's record 300 ms after the call arrived.
    const slowKv: KvNamespaceLike = {
      get: async (key, type) => {
        if (key.startsWith("app:")) harness.advanceClockOnly(300);
        return kv.get(key, type);
      },
      getWithMetadata: (key, type) => kv.getWithMetadata(key, type),
      put: (key, value, options) => kv.put(key, value, options),
      delete: (key) => kv.delete(key),
      list: (options) => kv.list(options),
    };
    const execution = createExecutionContext();
    const response = await harness.worker.fetch(
      new Request(`https://worker.test${compatPath}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "cf-aig-request-timeout": "1000",
        },
        body: compatBody,
      }),
      { ...harness.env, KEYS: slowKv },
      execution,
    );
    await response.text();
    await waitOnExecutionContext(execution);
    expect(response.status).toBe(200);
    expect(timeouts(harness.gatewayCalls)).toEqual(["700"]);
  });

  it("provider-native: no re-send starts once the time is spent; the answer in hand goes to the app at once", async () => {
    const { harness, token } = await twoKeyPool(async (attempt, harness) => {
      if (attempt > 0) return served();
      // The first key's 429 comes 1,050 ms into a 1,000 ms call, before the busy isolate ran
      // the deadline's timer.
      harness.advanceClockOnly(1050);
      return rateLimited("7");
    });
    const response = await harness.call("POST", nativePath, {
      token,
      body: '{"max_tokens":1}',
      headers: { "content-length": "16", "cf-aig-request-timeout": "1000" },
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(response.text).toContain("rate_limit_error");
    expect(timeouts(harness.gatewayCalls)).toEqual(["1000"]);
    expect(harness.events.at(-1)?.blobs?.[4]).toBe("http_429");
  });

  it("provider-native: a re-send still unanswered when the time runs out is abandoned with a 504 request_timeout, not answered late", async () => {
    const secondSent = deferred<void>();
    const secondAnswer = deferred<Response>();
    const { harness, token } = await twoKeyPool(async (attempt, harness) => {
      if (attempt === 0) {
        await harness.advance(400);
        return rateLimited();
      }
      secondSent.resolve();
      return secondAnswer.promise;
    });
    const started = harness.now();
    const pending = harness.call("POST", nativePath, {
      token,
      body: '{"max_tokens":1}',
      headers: { "content-length": "16", "cf-aig-request-timeout": "1000" },
    });
    await secondSent.promise;
    expect(timeouts(harness.gatewayCalls)).toEqual(["1000", "600"]);
    // The Worker waits for the re-send exactly until the call's deadline, no longer.
    const waiting = harness.timers.filter((timer) => !timer.done);
    expect(waiting.map((timer) => timer.due)).toEqual([started + 1000]);
    await harness.advance(600);
    // The provider's answer comes after the deadline: it must not reach the app.
    secondAnswer.resolve(served());
    const response = await pending;
    expect(response.status).toBe(504);
    expect(response.json().error).toMatchObject({ code: "request_timeout" });
    expect(response.json().error.message).toContain("cf-aig-request-timeout of 1000 ms");
    expect(harness.events.at(-1)?.blobs?.[4]).toBe("request_timeout");
    expect(harness.transcript.join("\n")).not.toContain("test-ant-");
  });

  it("a key's refusal whose body stalls does not hold the call past its deadline", async () => {
    const bodyOpen = deferred<void>();
    let close: (() => void) | undefined;
    const { harness, token } = await twoKeyPool(async (attempt) => {
      if (attempt > 0) return served();
      // A 429 without provider headers: the Worker reads its body to tell whose it is.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"type":"error",'));
          close = () => {
            controller.enqueue(new TextEncoder().encode('"error":{"type":"rate_limit_error"}}'));
            controller.close();
          };
          bodyOpen.resolve();
        },
      });
      return new Response(body, { status: 429 });
    });
    const pending = harness.call("POST", nativePath, {
      token,
      body: '{"max_tokens":1}',
      headers: { "content-length": "16", "cf-aig-request-timeout": "1000" },
    });
    await bodyOpen.promise;
    await harness.advance(1000);
    close?.();
    const response = await pending;
    expect(response.status).toBe(504);
    expect(response.json().error.code).toBe("request_timeout");
    expect(timeouts(harness.gatewayCalls)).toEqual(["1000"]);
  });

  it("a Retry-After longer than the remaining time is never waited for: the next key goes at once, then the last 429 goes back", async () => {
    const { harness, token } = await twoKeyPool(async () => rateLimited("3600"));
    const started = harness.now();
    // The clock never moves in this test: an answer comes only if the Worker waits for nothing.
    // A timer set past the deadline (a wait for the Retry-After) ends the test at once.
    const pastDeadline = deferred<string>();
    harness.onTimer((timer) => {
      if (timer.due > started + 2000) pastDeadline.resolve(`a timer for ${timer.due - started} ms`);
    });
    const pending = harness.call("POST", compatPath, {
      token,
      body: compatBody,
      headers: { "cf-aig-request-timeout": "2000" },
    });
    const first = await Promise.race([pending, pastDeadline.promise]);
    if (typeof first === "string") expect.fail(`the Worker waited past the deadline: ${first}`);
    const response = first;
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("3600");
    expect(timeouts(harness.gatewayCalls)).toEqual(["2000", "2000"]);
    // Each attempt was timed to the deadline, and each timer was cancelled when its answer came.
    expect(harness.timers.map((timer) => timer.due)).toEqual([started + 2000, started + 2000]);
    expect(harness.timers.every((timer) => timer.done)).toBe(true);
  });

  it("universal and dynamic/<route> calls keep the header's per-step meaning: passed on as sent, no Worker timer, fallbacks still possible", async () => {
    const answer = deferred<Response>();
    const sent = deferred<void>();
    const { harness, token } = await twoKeyPool(async () => {
      sent.resolve();
      return answer.promise;
    });
    const pending = harness.call("POST", `/v1/${accountId}/chat`, {
      token,
      body: [{ provider: "anthropic", endpoint: "v1/messages", query: { max_tokens: 1 } }],
      headers: { "cf-aig-request-timeout": "1500" },
    });
    await sent.promise;
    // One request, the step once per key: the gateway moves between the copies.
    expect(harness.gatewayCalls).toHaveLength(1);
    expect(harness.gatewayCalls[0]!.headers["cf-aig-request-timeout"]).toBe("1500");
    expect(harness.timers).toEqual([]);
    // The gateway gave each copy its 1,500 ms: the second key's copy answers at 2,500 ms.
    await harness.advance(2500);
    answer.resolve(new Response('{"ok":true}', { headers: { "cf-aig-step": "1" } }));
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("0");

    harness.setGateway(async () => served());
    const dynamic = await harness.call("POST", compatPath, {
      token,
      body: '{"model":"dynamic/support","messages":[]}',
      headers: { "cf-aig-request-timeout": "1500" },
    });
    expect(dynamic.status).toBe(200);
    expect(harness.gatewayCalls.at(-1)!.headers["cf-aig-request-timeout"]).toBe("1500");
    expect(harness.timers).toEqual([]);
  });

  it("without cf-aig-request-timeout nothing is timed by the Worker: the gateway's own timeouts apply", async () => {
    const { harness, token } = await twoKeyPool(async (attempt) =>
      attempt === 0 ? rateLimited() : served(),
    );
    const response = await harness.call("POST", compatPath, { token, body: compatBody });
    expect(response.status).toBe(200);
    expect(timeouts(harness.gatewayCalls)).toEqual([undefined, undefined]);
    expect(harness.timers).toEqual([]);
  });

  it("a malformed cf-aig-request-timeout is a 400 naming the header and the fix; nothing goes upstream", async () => {
    const { harness, token } = await twoKeyPool(async () => served());
    for (const value of ["soon", "0", "3600001", "1.5"]) {
      const response = await harness.call("POST", compatPath, {
        token,
        body: compatBody,
        headers: { "cf-aig-request-timeout": value },
      });
      expect(response.status).toBe(400);
      expect(response.json().error).toMatchObject({ code: "invalid_request_timeout" });
      expect(response.json().error.message).toContain(
        "cf-aig-request-timeout must be a whole number",
      );
    }
    expect(harness.gatewayCalls).toEqual([]);
  });
});
