/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * A cached answer replayed by the gateway after the key it echoes was rotated and revoked (issue
 * #23) must not carry that key to an app, nor may an answer cached for one provider carry its key
 * to a call for another (a shared `cf-aig-cache-key`). The scrubber knows every value the ledger
 * has held within the cache's lifetime: for every provider when the answer may be another
 * provider's (a cache key that does not name the call's providers), else for the call's own.
 */
import { describe, expect, it } from "vitest";
import { accountId, createHarness, credentialOf, type GatewayCall } from "./harness.ts";

const openaiKeys = ["sk-REPLAY-openai-first-7f31", "sk-REPLAY-openai-second-a9"];
const anthropicKey = "sk-ant-REPLAY-0c55e1d2";

/**
 * A gateway with a cache: an answer is kept under the call's path and body (or its
 * `cf-aig-cache-key`) and replayed as a `HIT`; the upstream repeats the key it was sent.
 */
function cachingEchoGateway() {
  const cache = new Map<string, string>();
  return (call: GatewayCall): Response => {
    const cacheKey = call.headers["cf-aig-cache-key"] ?? `${call.url} ${call.body}`;
    const cached = cache.get(cacheKey);
    const headers = { "content-type": "application/json", "cf-aig-step": "0" };
    if (cached !== undefined) {
      return new Response(cached, { headers: { ...headers, "cf-aig-cache-status": "HIT" } });
    }
    const provider =
      new URL(call.url).pathname.split("/")[4] === "anthropic" ? "anthropic" : "openai";
    const compat = call.url.includes("/compat/");
    const key = compat
      ? call.headers.authorization?.replace(/^Bearer /, "")
      : credentialOf(provider, call.headers);
    const text = JSON.stringify({
      choices: [{ message: { role: "assistant", content: `debug: you sent ${key}` } }],
    });
    cache.set(cacheKey, text);
    return new Response(text, { headers: { ...headers, "cf-aig-cache-status": "MISS" } });
  };
}

const compatPath = `/v1/${accountId}/chat/compat/chat/completions`;
const question = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };

describe("a cached answer never carries a retired key to an app", () => {
  it("rotated and revoked: the replay is a HIT with the old key scrubbed", async () => {
    const harness = createHarness({ gateway: cachingEchoGateway() });
    const first = await harness.rotate("openai", openaiKeys[0]!);
    const app = await harness.createApp();
    await harness.advance(2_000);
    const miss = await harness.call("POST", compatPath, { token: app.token, body: question });
    expect(miss.headers.get("cf-aig-cache-status")).toBe("MISS");
    expect(miss.text).not.toContain(openaiKeys[0]);

    await harness.rotate("openai", openaiKeys[1]!);
    await harness.advance(1_000);
    const revoked = await harness.call("DELETE", `/keys/openai/${first.version}`);
    expect(revoked.status).toBe(200);
    await harness.advance(61_000);
    const other = await harness.createApp("other");
    for (const token of [app.token, other.token]) {
      const hit = await harness.call("POST", compatPath, { token, body: question });
      expect(hit.headers.get("cf-aig-cache-status")).toBe("HIT");
      expect(hit.text).not.toContain(openaiKeys[0]);
      expect(hit.text).toContain("[redacted]");
    }
  });

  it("an answer cached for one provider, replayed to a call for another, carries neither key", async () => {
    const harness = createHarness({ gateway: cachingEchoGateway() });
    await harness.rotate("openai", openaiKeys[0]!);
    await harness.rotate("anthropic", anthropicKey);
    const app = await harness.createApp();
    await harness.advance(2_000);
    const headers = { "cf-aig-cache-key": "shared-answer" };
    const native = await harness.call("POST", `/v1/${accountId}/chat/anthropic/v1/messages`, {
      token: app.token,
      body: { model: "claude-sonnet-4-5", messages: [] },
      headers,
    });
    expect(native.headers.get("cf-aig-cache-status")).toBe("MISS");
    // An openai call only: the anthropic key is not one this call sent.
    const hit = await harness.call("POST", compatPath, {
      token: app.token,
      body: question,
      headers,
    });
    expect(hit.headers.get("cf-aig-cache-status")).toBe("HIT");
    expect(hit.text).not.toContain(anthropicKey);
    expect(hit.text).toContain("[redacted]");
  });
});

describe("without the list of secrets", () => {
  it("an answer is not passed on unchecked: a JSON 503, with no key in it", async () => {
    const harness = createHarness({ gateway: cachingEchoGateway() });
    await harness.rotate("openai", openaiKeys[0]!);
    const app = await harness.createApp();
    await harness.advance(2_000);
    // KV fails for a provider this call does not use: its pool is read, the list of secrets not
    // (under the app's own cache key the answer may be one cached for that provider).
    const kv = harness.env.KEYS;
    const read = kv.get.bind(kv);
    kv.get = (name, type) =>
      name === "current:google-ai-studio"
        ? Promise.reject(new Error("KV is down"))
        : read(name, type);
    const response = await harness.call("POST", compatPath, {
      token: app.token,
      body: question,
      headers: { "cf-aig-cache-key": "mine" },
    });
    expect(response.status).toBe(503);
    expect(response.json()).toMatchObject({ error: { code: "key_store_unavailable" } });
    expect(response.text).not.toContain(openaiKeys[0]);
    // A call the gateway answers fresh needs only its own provider's list: it is served.
    const fresh = await harness.call("POST", compatPath, { token: app.token, body: question });
    expect(fresh.status).toBe(200);
    expect(fresh.text).not.toContain(openaiKeys[0]);
  });
});
