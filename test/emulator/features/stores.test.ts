import { describe, expect, it } from "vitest";
import { LogBodyStore } from "../../../src/emulator/features/log-bodies.ts";
import { type GatewayLogRecord, LogStore } from "../../../src/emulator/features/log-store.ts";
import { cacheKey, ResponseCache } from "../../../src/emulator/features/response-cache.ts";
import { WindowCounter } from "../../../src/emulator/features/window-counter.ts";

const minute = 60_000;
const at = (hour: number, minutes: number) => Date.UTC(2026, 0, 15, hour, minutes);

function record(id: string): GatewayLogRecord {
  return {
    id,
    created_at: "2026-01-15T12:00:00.000Z",
    provider: "openai",
    model: "gpt-4o-mini",
    path: "chat/completions",
    duration: 1,
    success: true,
    cached: false,
    status_code: 200,
    tokens_in: 1,
    tokens_out: 1,
    custom_cost: false,
    request_type: "universal",
    step: 0,
    request_size: 1,
    response_size: 1,
    request_id: id,
    gateway_id: "g",
    attempts: 1,
  };
}

describe("WindowCounter", () => {
  it("counts Cloudflare's example: fixed resets at the window edge, sliding remembers", () => {
    const counter = new WindowCounter();
    const fixed = { technique: "fixed", windowMs: 10 * minute } as const;
    const sliding = { technique: "sliding", windowMs: 10 * minute } as const;
    const run = (spec: typeof fixed | typeof sliding, time: number) =>
      Array.from({ length: 10 }, () => counter.tryConsume("k", spec, time, 10));
    expect(run(fixed, at(12, 9)).every(Boolean)).toBe(true);
    expect(run(fixed, at(12, 11)).every(Boolean)).toBe(true);
    expect(run(sliding, at(12, 9)).every(Boolean)).toBe(true);
    expect(run(sliding, at(12, 11)).some(Boolean)).toBe(false);
    expect(counter.total("k", sliding, at(12, 19) + 1)).toBe(0);
  });

  it("sums weights (costs) and keeps keys apart", () => {
    const counter = new WindowCounter();
    const spec = { technique: "sliding", windowMs: minute } as const;
    counter.add("a", spec, 0, 0.25);
    counter.add("a", spec, 10, 0.5);
    counter.add("b", spec, 10, 9);
    expect(counter.total("a", spec, 20)).toBe(0.75);
    expect(counter.total("a", spec, minute + 5)).toBe(0.5);
  });

  it("stays bounded: old keys go, sliding entries merge without under-counting", () => {
    const counter = new WindowCounter({ maxKeys: 2, maxEntriesPerKey: 3 });
    const spec = { technique: "sliding", windowMs: minute } as const;
    for (let index = 0; index < 5; index++) counter.add("k", spec, index, 1);
    expect(counter.total("k", spec, 10)).toBe(5);
    counter.add("x", spec, 0, 1);
    counter.add("y", spec, 0, 1);
    expect(counter.total("k", spec, 10)).toBe(0);
  });
});

describe("LogStore", () => {
  it("STOP_INSERTING keeps the first records once the limit is reached", () => {
    const store = new LogStore(() => ({ limit: 2, strategy: "STOP_INSERTING" }), 100);
    expect(["a", "b", "c"].map((id) => store.add(record(id)))).toEqual([true, true, false]);
    expect(store.list().map((entry) => entry.id)).toEqual(["a", "b"]);
  });

  it("DELETE_OLDEST evicts the oldest; the memory capacity always evicts", () => {
    let limits = { limit: 2 as number | null, strategy: "DELETE_OLDEST" as const };
    const store = new LogStore(() => limits, 3);
    for (const id of ["a", "b", "c"]) store.add(record(id));
    expect(store.list().map((entry) => entry.id)).toEqual(["b", "c"]);
    limits = { limit: null, strategy: "DELETE_OLDEST" };
    for (const id of ["d", "e"]) store.add(record(id));
    expect(store.list().map((entry) => entry.id)).toEqual(["c", "d", "e"]);
    expect(store.get("d")?.id).toBe("d");
    expect(store.remove((entry) => entry.id === "d")).toBe(1);
    expect(store.size).toBe(2);
  });

  it("keeps working after many evictions", () => {
    const store = new LogStore(() => ({ limit: 10, strategy: "DELETE_OLDEST" }), 10);
    for (let index = 0; index < 5000; index++) store.add(record(String(index)));
    expect(store.size).toBe(10);
    expect(store.list()[0]!.id).toBe("4990");
  });

  it("is a ring: past its capacity it keeps the newest records in order, and finds and edits them", () => {
    const store = new LogStore(() => ({ limit: null, strategy: "DELETE_OLDEST" }), 4);
    for (let index = 0; index < 10; index++) store.add(record(String(index)));
    expect(store.list().map((entry) => entry.id)).toEqual(["6", "7", "8", "9"]);
    expect(store.get("5")).toBeUndefined();
    expect(store.update("7", { feedback: 1 })?.feedback).toBe(1);
    expect(store.get("7")?.feedback).toBe(1);
    expect(store.remove((entry) => entry.id === "8")).toBe(1);
    for (const id of ["a", "b", "c"]) store.add(record(id));
    expect(store.list().map((entry) => entry.id)).toEqual(["9", "a", "b", "c"]);
  });

  it("follows a gateway limit lowered below the capacity, and drops the bodies of evicted records", () => {
    let limits = { limit: null as number | null, strategy: "DELETE_OLDEST" as const };
    const store = new LogStore(() => limits, 100);
    for (let index = 0; index < 6; index++) {
      const entry = record(String(index));
      store.add(entry);
      store.bodies.set(entry.id, { request: store.bodies.keep(Buffer.from("q"), undefined)! });
    }
    limits = { limit: 2, strategy: "DELETE_OLDEST" };
    store.add(record("6"));
    expect(store.list().map((entry) => entry.id)).toEqual(["5", "6"]);
    expect(store.bodies.get("4")).toBeUndefined();
    expect(store.bodies.get("5")?.request?.bytes.toString()).toBe("q");
  });

  it("refuses a capacity that is not a whole number of at least 1", () => {
    const limits = () => ({ limit: null, strategy: "DELETE_OLDEST" as const });
    expect(() => new LogStore(limits, 0)).toThrow(/at least 1/);
    expect(() => new LogStore(limits, 1.5)).toThrow(/at least 1/);
  });
});

describe("LogBodyStore", () => {
  it("gives back any bytes exactly as kept, cut to the per-body limit", () => {
    const bodies = new LogBodyStore({ maxBodyBytes: 4 });
    const bytes = Buffer.from([0xff, 0x00, 0xc3, 0x28, 0x41, 0x42]);
    bodies.set("a", {
      request: bodies.keep(bytes.subarray(0, 4), "application/octet-stream")!,
      response: bodies.keep(bytes, "text/plain")!,
    });
    const stored = bodies.get("a")!;
    expect(stored.request).toEqual({
      bytes: bytes.subarray(0, 4),
      contentType: "application/octet-stream",
      complete: true,
    });
    expect(stored.response).toEqual({
      bytes: bytes.subarray(0, 4),
      contentType: "text/plain",
      complete: false,
    });
  });

  it("drops the oldest bodies past its total bound", () => {
    const bodies = new LogBodyStore({ maxTotalBytes: 10 });
    for (const id of ["a", "b", "c"]) {
      bodies.set(id, { request: bodies.keep(Buffer.alloc(4), undefined)! });
    }
    expect(bodies.get("a")).toBeUndefined();
    expect(bodies.get("b")).toBeDefined();
    expect(bodies.get("c")).toBeDefined();
  });
});

describe("ResponseCache", () => {
  const entry = (bytes: number, expiresAt = 1000) => ({
    status: 200,
    headers: [],
    body: Buffer.alloc(bytes),
    provider: "openai",
    model: "m",
    tokensIn: 1,
    tokensOut: 1,
    expiresAt,
  });

  it("expires by the given clock and evicts the least recently used past its bounds", () => {
    const cache = new ResponseCache({ maxEntries: 2, maxBytes: 100 });
    cache.set("g\0a", entry(10));
    cache.set("g\0b", entry(10));
    expect(cache.get("g\0a", 0)).toBeDefined();
    cache.set("g\0c", entry(10));
    expect(cache.get("g\0b", 0)).toBeUndefined();
    expect(cache.get("g\0a", 1000)).toBeUndefined();
    cache.set("g\0big", entry(101));
    expect(cache.get("g\0big", 0)).toBeUndefined();
    cache.purgeGateway("g");
    expect(cache.size).toBe(0);
  });

  it("keys by gateway, provider, method, path and body, or by the custom key", () => {
    const base = { gatewayId: "g", provider: "openai", method: "POST", path: "chat/completions" };
    const one = cacheKey({ ...base, body: Buffer.from("{}") });
    expect(cacheKey({ ...base, body: Buffer.from("{}") })).toBe(one);
    expect(cacheKey({ ...base, body: Buffer.from("{ }") })).not.toBe(one);
    expect(cacheKey({ ...base, provider: "groq", body: Buffer.from("{}") })).not.toBe(one);
    expect(cacheKey({ ...base, gatewayId: "h", body: Buffer.from("{}") })).not.toBe(one);
    expect(cacheKey({ ...base, body: Buffer.from("1"), customKey: "k" })).toBe(
      cacheKey({ ...base, path: "other", body: Buffer.from("2"), customKey: "k" }),
    );
  });
});
