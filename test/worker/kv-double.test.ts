/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The KV double keeps Cloudflare's documented behaviour: a write is seen at once where it was
 * made and one propagation time later elsewhere, one write per second per key (more fail with
 * 429), and KV's limits on TTLs, metadata and list pages.
 */
import { describe, expect, it } from "vitest";
import { KvDouble } from "./kv-double.ts";

function setUp() {
  const clock = { now: 1_000_000 };
  const kv = new KvDouble({ now: () => clock.now });
  return { clock, kv, here: kv.at("here"), there: kv.at("there") };
}

describe("KvDouble", () => {
  it("a write is visible where it was made at once and elsewhere after 60 s", async () => {
    const { clock, here, there } = setUp();
    await here.put("k", "v1");
    expect(await here.get("k", "text")).toBe("v1");
    expect(await there.get("k", "text")).toBeNull();
    clock.now += 59_999;
    expect(await there.get("k", "text")).toBeNull();
    clock.now += 1;
    expect(await there.get("k", "text")).toBe("v1");
    clock.now += 1_000;
    await there.delete("k");
    expect(await there.get("k", "text")).toBeNull();
    expect(await here.get("k", "text")).toBe("v1");
  });

  it("takes one write per second per key; the second fails as Cloudflare's binding does", async () => {
    const { clock, here, there, kv } = setUp();
    await here.put("k", "a");
    await expect(there.put("k", "b")).rejects.toThrow("KV PUT failed: 429 Too Many Requests");
    await expect(here.delete("k")).rejects.toThrow("429");
    await here.put("other", "fine");
    clock.now += 1_000;
    await there.put("k", "b");
    expect(kv.attempts.filter((attempt) => !attempt.accepted)).toHaveLength(2);
  });

  it("refuses what KV refuses: short TTLs, big metadata, long keys, big list pages, short cacheTtl", async () => {
    const { here } = setUp();
    await expect(here.put("k", "v", { expirationTtl: 59 })).rejects.toThrow("at least 60");
    await expect(here.put("m", "v", { metadata: { x: "y".repeat(1100) } })).rejects.toThrow("1024");
    await expect(here.put("k".repeat(513), "v")).rejects.toThrow("512");
    await expect(here.list({ prefix: "", limit: 1001 })).rejects.toThrow("key_count_limit");
    await expect(here.get("k", { type: "text", cacheTtl: 10 })).rejects.toThrow("cache_ttl");
  });

  it("expires keys by the clock, and lists what a location sees, page by page", async () => {
    const { clock, here, there } = setUp();
    await here.put("a:1", "x", { expirationTtl: 60, metadata: { n: 1 } });
    await here.put("a:2", "y");
    await here.put("b:1", "z");
    const page = await here.list<{ n: number }>({ prefix: "a:", limit: 1 });
    expect(page).toMatchObject({
      keys: [{ name: "a:1", metadata: { n: 1 } }],
      list_complete: false,
    });
    expect((await there.list({ prefix: "a:" })).keys).toEqual([]);
    clock.now += 60_000;
    expect((await here.list({ prefix: "a:" })).keys.map((key) => key.name)).toEqual(["a:2"]);
    expect(await there.get("a:1", "text")).toBeNull();
  });
});
