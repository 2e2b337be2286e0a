/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * What a proxied call costs at the edge: at most one KV read per KV key (the app's token record
 * and one record per provider, however many steps name it), and no KV write at all; an isolate
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
    // The app's record and one record per provider the Worker holds keys for (anthropic, openai,
    // google-ai-studio): each lists the values to scrub from the answer, as well as the pool.
    expect(reads).toHaveLength(4);
    expect(harness.kv.attempts.length).toBe(writesBefore);
  });

  it("an isolate reuses what it read for a second", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-reads-0000001");
    const app = await harness.createApp();
    await harness.advance(2_000);
    const call = () =>
      harness.call("POST", `/v1/${accountId}/chat/openai/models`, { token: app.token, body: {} });
    const before = harness.kv.reads.length;
    // Each call needs the app's record and the three providers' (the pool, the values to scrub).
    await call();
    await call();
    expect(harness.kv.reads.length - before).toBe(4);
    await harness.advance(999);
    await call();
    expect(harness.kv.reads.length - before).toBe(4);
    await harness.advance(1);
    await call();
    expect(harness.kv.reads.length - before).toBe(8);
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
