/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * What a proxied call costs at the edge: at most one KV read per KV key (the app's token record
 * and one record per provider the call names, however many steps name it; every provider's when
 * a cached answer may be another provider's), and no KV write at all; an isolate
 * reuses what it read for a second (never sharing a read still in flight), and reads again at once
 * what it changed itself.
 */
import { describe, expect, it } from "vitest";
import type { KvNamespaceLike } from "../../src/worker/bindings.ts";
import { EdgeCache, EdgeReader } from "../../src/worker/edge-reader.ts";
import { accountId, createHarness } from "./harness.ts";
import { KvDouble } from "./kv-double.ts";

describe("KV traffic of a proxied call", () => {
  it("reads each key once at most and writes nothing", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-reads-0000001");
    await harness.rotate("anthropic", "sk-ant-reads-000000002");
    const app = await harness.createApp();
    await harness.advance(2_000);
    const readsBefore = harness.kv.reads.length;
    const writesBefore = harness.kv.attempts.length;
    const step = (provider: string) => ({
      provider,
      endpoint: "chat/completions",
      query: { model: "m", messages: [] },
    });
    const response = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: [step("openai"), step("anthropic"), step("openai")],
    });
    expect(response.status).toBe(401);
    const reads = harness.kv.reads.slice(readsBefore).map((read) => read.key);
    expect(new Set(reads).size).toBe(reads.length);
    // The app's record and one record per provider the call names (anthropic, openai): each
    // lists the values to scrub from the answer, as well as the pool. google-ai-studio, which
    // the Worker also holds keys for, is not read: this answer is not cached, so only the
    // call's own upstreams can have written it.
    expect(reads.sort()).toEqual([
      expect.stringMatching(/^app:/),
      "current:anthropic",
      "current:openai",
    ]);
    expect(harness.kv.attempts.length).toBe(writesBefore);
  });

  it("a call whose cache key does not name its providers reads every provider's record, to scrub a replay", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-reads-0000001");
    const app = await harness.createApp();
    await harness.advance(2_000);
    const readsBefore = harness.kv.reads.length;
    // An answer cached under the app's own key may be one cached for another provider.
    await harness.call("POST", `/v1/${accountId}/chat/compat/chat/completions`, {
      token: app.token,
      body: { model: "openai/gpt-4o-mini", messages: [] },
      headers: { "cf-aig-cache-key": "mine" },
    });
    const reads = harness.kv.reads.slice(readsBefore).map((read) => read.key);
    expect(reads.sort()).toEqual([
      expect.stringMatching(/^app:/),
      "current:anthropic",
      "current:google-ai-studio",
      "current:openai",
    ]);
  });

  it("an isolate reuses what it read for a second", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-reads-0000001");
    const app = await harness.createApp();
    await harness.advance(2_000);
    const call = () =>
      harness.call("POST", `/v1/${accountId}/chat/openai/models`, { token: app.token, body: {} });
    const before = harness.kv.reads.length;
    // Each call needs the app's record and its provider's (the pool, the values to scrub).
    await call();
    await call();
    expect(harness.kv.reads.length - before).toBe(2);
    await harness.advance(999);
    await call();
    expect(harness.kv.reads.length - before).toBe(2);
    await harness.advance(1);
    await call();
    expect(harness.kv.reads.length - before).toBe(4);
  });

  it("a read one call abandoned never holds up another call (issue #23)", async () => {
    const cache = new EdgeCache(1_000);
    const stranded: KvNamespaceLike = {
      ...new KvDouble({ now: () => 0 }).at("edge"),
      // The read of a request that ended: in workerd it never settles.
      get: () => new Promise<never>(() => undefined),
    };
    const first = new EdgeReader(stranded, () => 0, cache);
    void first.text("current:openai");
    const kv = new KvDouble({ now: () => 0 });
    await kv.at("edge").put("current:openai", "pool");
    const second = new EdgeReader(kv.at("edge"), () => 0, cache);
    expect(await second.text("current:openai")).toBe("pool");
    // What the second call read is shared once settled.
    expect(await new EdgeReader(stranded, () => 500, cache).text("current:openai")).toBe("pool");
  });

  it("a rotation through this isolate is used by its next call; other locations wait for KV", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-old-key-00001");
    const app = await harness.createApp();
    await harness.advance(61_000);
    const sent = async (location: string) => {
      await harness.at(location)("POST", `/v1/${accountId}/chat/openai/models`, {
        token: app.token,
        body: {},
      });
      return harness.gatewayCalls.at(-1)?.headers.authorization;
    };
    expect(await sent("edge-a")).toBe("Bearer sk-openai-old-key-00001");
    expect(await sent("edge-b")).toBe("Bearer sk-openai-old-key-00001");
    await harness.rotate("openai", "sk-openai-new-key-00002");
    expect(await sent("edge-a")).toBe("Bearer sk-openai-new-key-00002");
    await harness.advance(30_000);
    expect(await sent("edge-b")).toBe("Bearer sk-openai-old-key-00001");
    await harness.advance(30_000);
    expect(await sent("edge-b")).toBe("Bearer sk-openai-new-key-00002");
  });
});
