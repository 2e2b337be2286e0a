import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import { emulatorWith, postJson, testConfig, universalBody } from "./helpers.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const config = testConfig([
  {
    id: "cached",
    cache: { ttl: 300 },
    routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
  },
]);

async function call(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await postJson(url, body, headers);
  return {
    status: response.headers.get("cf-aig-cache-status"),
    text: await response.text(),
    response,
  };
}

describe("caching", () => {
  it("serves a HIT on the repeat and a MISS once the TTL has passed", async () => {
    const { emulator: started, clock } = await emulatorWith({ config });
    emulator = started;
    const url = emulator.gatewayUrl("open");
    const body = universalBody(config, "open");
    const first = await call(url, body, { "cf-aig-cache-ttl": "60" });
    const second = await call(url, body, { "cf-aig-cache-ttl": "60" });
    expect([first.status, second.status]).toEqual(["MISS", "HIT"]);
    expect(second.text).toBe(first.text);
    expect(emulator.mocks!.attempts).toHaveLength(1);
    clock.advance(60_001);
    const third = await call(url, body, { "cf-aig-cache-ttl": "60" });
    expect(third.status).toBe("MISS");
    expect(emulator.mocks!.attempts).toHaveLength(2);
    const logs = emulator.logs("open");
    expect(logs.map((log) => log.cached)).toEqual([false, true, false]);
    expect(logs[1]).toMatchObject({ success: true, cost: 0, step: 0 });
  });

  it("uses the gateway TTL, skips the cache on cf-aig-skip-cache and honours a per-step TTL of 0", async () => {
    const { emulator: started } = await emulatorWith({ config });
    emulator = started;
    const url = emulator.gatewayUrl("cached");
    const body = universalBody(config, "cached");
    expect((await call(url, body)).status).toBe("MISS");
    expect((await call(url, body)).status).toBe("HIT");
    expect((await call(url, body, { "cf-aig-skip-cache": "true" })).status).toBe("MISS");
    const noCache = universalBody(config, "cached");
    noCache[0]!.headers["cf-aig-cache-ttl"] = "0";
    noCache[0]!.query.temperature = 0.5;
    expect((await call(url, noCache)).status).toBe("MISS");
    expect((await call(url, noCache)).status).toBe("MISS");
    expect(emulator.mocks!.attempts).toHaveLength(4);
  });

  it("shares an entry between different bodies under one cf-aig-cache-key", async () => {
    const { emulator: started } = await emulatorWith({ config });
    emulator = started;
    const url = emulator.gatewayUrl("open");
    const one = universalBody(config, "open");
    const other = universalBody(config, "open");
    other[0]!.query.temperature = 0.1;
    expect((await call(url, one, { "cf-aig-cache-key": "greeting" })).status).toBe("MISS");
    expect((await call(url, other, { "cf-aig-cache-key": "greeting" })).status).toBe("HIT");
  });

  it("never stores failures or streams", async () => {
    const { emulator: started } = await emulatorWith({
      config,
      faults: { rules: [{ provider: "openai", kind: "server-error-once" }] },
    });
    emulator = started;
    const url = emulator.gatewayUrl("cached");
    const body = universalBody(config, "cached");
    const failed = await call(url, body);
    expect(failed.response.status).toBe(500);
    expect((await call(url, body)).status).toBe("MISS");
    expect((await call(url, body)).status).toBe("HIT");
    const streaming = universalBody(config, "cached", "default", { stream: true });
    expect((await call(url, streaming)).status).toBe("MISS");
    expect((await call(url, streaming)).status).toBe("MISS");
  });
});
