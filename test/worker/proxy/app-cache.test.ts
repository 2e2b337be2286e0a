/**
 * The Worker's own `cf-aig-cache-key` (src/worker/proxy/app-cache.ts, issue #23): sent wherever
 * the gateway caches the call, made from the app and its key or its call, and nowhere else, since
 * caching.mdx says of a custom key: "If caching is not enabled for the gateway, responses will be
 * cached for 5 minutes by default." Everywhere else the call skips the cache ("You can use the
 * header cf-aig-skip-cache to bypass the cached version of the request"): the Worker knows only
 * the config's TTLs, and a cache turned on in the dashboard would be one cache for every app.
 */
import { describe, expect, it } from "vitest";
import {
  applyCachePlan,
  cachePlan,
  scopedCacheKey,
  uncachedStepHeaders,
} from "../../../src/worker/proxy/app-cache.ts";

const caching = { id: "chat", cache: { ttl: 300 } };
const plain = { id: "chat" };
const shared = { id: "chat", cache: { ttl: 300, shareBetweenApps: true } };

const call = {
  appId: "a1b2c3d4e5f6",
  method: "POST",
  path: "/v1/acc/chat/compat/chat/completions",
};

describe("cachePlan", () => {
  it("scoped where the gateway caches by default, or the call or a step asks for it", () => {
    expect(cachePlan(new Headers(), undefined, caching)).toBe("scoped");
    expect(cachePlan(new Headers({ "cf-aig-cache-ttl": "60" }), undefined, plain)).toBe("scoped");
    expect(cachePlan(new Headers({ "cf-cache-ttl": "60" }), undefined, plain)).toBe("scoped");
    // A key alone turns caching on for 5 minutes.
    expect(cachePlan(new Headers(), "my-key", plain)).toBe("scoped");
    expect(cachePlan(new Headers(), undefined, plain, [{ "CF-AIG-Cache-TTL": "120" }])).toBe(
      "scoped",
    );
    // A TTL the gateway will refuse still counts as caching: never an unscoped lookup.
    expect(cachePlan(new Headers({ "cf-aig-cache-ttl": "soon" }), undefined, plain)).toBe("scoped");
  });

  it("uncached where nothing caches: no key is sent to turn caching on", () => {
    expect(cachePlan(new Headers(), undefined, plain)).toBe("uncached");
    expect(cachePlan(new Headers({ "cf-aig-cache-ttl": "0" }), undefined, caching)).toBe(
      "uncached",
    );
    expect(cachePlan(new Headers({ "cf-aig-skip-cache": "true" }), "k", caching)).toBe("uncached");
    expect(cachePlan(new Headers(), undefined, plain, [{ "content-type": "x" }])).toBe("uncached");
  });

  it("shared where the gateway shares its cache between apps on purpose", () => {
    expect(cachePlan(new Headers(), "k", shared)).toBe("shared");
  });
});

describe("scopedCacheKey", () => {
  it("differs between apps for the same key and for the same call; the same for one app's repeat", async () => {
    const a = await scopedCacheKey({ ...call, appKey: "K", body: null });
    const b = await scopedCacheKey({ ...call, appId: "ffffffffffff", appKey: "K", body: null });
    expect(a).toMatch(/^stepwise:a1b2c3d4e5f6:key:[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(await scopedCacheKey({ ...call, appKey: "K", body: "other" })).toBe(a);
    const body = '{"model":"openai/gpt-4o-mini"}';
    const first = await scopedCacheKey({ ...call, appKey: undefined, body });
    expect(first).toMatch(/^stepwise:a1b2c3d4e5f6:call:[0-9a-f]{64}$/);
    expect(await scopedCacheKey({ ...call, appKey: undefined, body })).toBe(first);
    expect(
      await scopedCacheKey({ ...call, appId: "ffffffffffff", appKey: undefined, body }),
    ).not.toBe(first);
    expect(await scopedCacheKey({ ...call, appKey: undefined, body: `${body} ` })).not.toBe(first);
    expect(
      await scopedCacheKey({ ...call, path: "/v1/acc/chat/openai/x", appKey: undefined, body }),
    ).not.toBe(first);
    // Bytes and text of the same body differ only where the bytes are not text.
    const bytes = new Uint8Array([0xff, 0x00, 0x41]);
    expect(await scopedCacheKey({ ...call, appKey: undefined, body: bytes })).not.toBe(
      await scopedCacheKey({ ...call, appKey: undefined, body: new Uint8Array([0xfe, 0, 0x41]) }),
    );
  });
});

describe("applyCachePlan", () => {
  it("sets the scoped key, skips the cache for an unread body, passes the app's key where shared", async () => {
    const scoped = new Headers({ "cf-aig-cache-key": "stale" });
    await applyCachePlan(scoped, "scoped", { ...call, appKey: undefined, body: "{}" });
    expect(scoped.get("cf-aig-cache-key")).toMatch(/^stepwise:a1b2c3d4e5f6:call:/);

    const unread = new Headers();
    await applyCachePlan(unread, "scoped", { ...call, appKey: undefined, body: undefined });
    expect(unread.get("cf-aig-skip-cache")).toBe("true");
    expect(unread.has("cf-aig-cache-key")).toBe(false);

    const keyed = new Headers();
    await applyCachePlan(keyed, "scoped", { ...call, appKey: "K", body: undefined });
    expect(keyed.get("cf-aig-cache-key")).toMatch(/^stepwise:a1b2c3d4e5f6:key:/);

    const sharing = new Headers();
    await applyCachePlan(sharing, "shared", { ...call, appKey: "K", body: "{}" });
    expect(sharing.get("cf-aig-cache-key")).toBe("K");

    // Uncached by the config: no key (it would turn caching on), and no cache the Worker cannot
    // scope (one enabled in the dashboard) answers the app either.
    const off = new Headers({ "cf-aig-cache-key": "K", "cf-skip-cache": "false" });
    await applyCachePlan(off, "uncached", { ...call, appKey: undefined, body: "{}" });
    expect([...off.entries()]).toEqual([["cf-aig-skip-cache", "true"]]);
    const offFalse = new Headers({ "cf-aig-skip-cache": "false" });
    await applyCachePlan(offFalse, "uncached", { ...call, appKey: undefined, body: "{}" });
    expect(offFalse.get("cf-aig-skip-cache")).toBe("true");

    // Shared on purpose: the app's directives go as sent.
    const sharedOff = new Headers({ "cf-aig-skip-cache": "false" });
    await applyCachePlan(sharedOff, "shared", { ...call, appKey: undefined, body: "{}" });
    expect([...sharedOff.entries()]).toEqual([["cf-aig-skip-cache", "false"]]);
  });
});

describe("uncachedStepHeaders", () => {
  it("turns a step's own skip directive (which wins over the request's) into a skip", () => {
    expect(
      uncachedStepHeaders("uncached", {
        "CF-AIG-Skip-Cache": "false",
        "cf-skip-cache": "no",
        a: "1",
      }),
    ).toEqual({ a: "1", "cf-aig-skip-cache": "true" });
    // A step with none keeps the request's skip.
    expect(uncachedStepHeaders("uncached", { a: "1" })).toEqual({ a: "1" });
    expect(uncachedStepHeaders("scoped", { "cf-aig-skip-cache": "false" })).toEqual({
      "cf-aig-skip-cache": "false",
    });
    expect(uncachedStepHeaders("shared", { "cf-aig-skip-cache": "false" })).toEqual({
      "cf-aig-skip-cache": "false",
    });
  });
});
