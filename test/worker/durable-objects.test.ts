/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The real Durable Object classes in workerd, with wrangler.jsonc's bindings (`KEY_LEDGER`,
 * `APP_LIMITER`, Miniflare's KV) and the runtime's own storage, alarms, RPC and clock: the
 * deployed wiring of the single writer, its write-through and the exact limiter.
 */
import {
  createExecutionContext,
  env,
  reset,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig, workerViewText } from "../../src/config/index.ts";
import { createWorker, type WorkerEnv } from "../../src/worker/index.ts";
import { accountId, adminToken, testConfig } from "./harness.ts";

afterEach(async () => {
  await reset();
});

/** The part of a Durable Object's storage this test writes. */
interface OwedStorage {
  put(key: string, value: unknown): Promise<void>;
  setAlarm(time: number): Promise<void>;
}

function setUp() {
  const sent: { url: string; authorization: string | null }[] = [];
  const worker = createWorker({
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      sent.push({ url: request.url, authorization: request.headers.get("authorization") });
      return new Response('{"ok":true}', {
        headers: { "content-type": "application/json", "cf-aig-step": "0" },
      });
    },
  });
  const workerEnv = {
    ...(env as unknown as WorkerEnv),
    ROTATE_TOKEN: adminToken,
    GATEWAY_URL: "https://gateway.test",
    STEPWISE_CONFIG: workerViewText(parseConfig(testConfig())),
  } as WorkerEnv;
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const execution = createExecutionContext();
    const response = await worker.fetch(
      new Request(`https://worker.test${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
      workerEnv,
      execution,
    );
    const text = await response.text();
    await waitOnExecutionContext(execution);
    // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies field by field
    return { status: response.status, json: (): any => JSON.parse(text) };
  };
  return { sent, call, workerEnv };
}

describe("the Durable Objects in workerd", () => {
  it("a rotation commits in KeyLedger, is written through to KV, and the proxy injects it", async () => {
    const { call, sent, workerEnv } = setUp();
    const rotated = await call("PUT", "/keys/openai", adminToken, {
      key: "sk-openai-real-do-0001",
    });
    expect(rotated.status).toBe(201);
    expect(rotated.json()).toMatchObject({
      state: "current",
      revision: 1,
      propagation: { kv: "written" },
    });
    const stored = JSON.parse((await workerEnv.KEYS.get("current:openai", "text")) ?? "{}");
    expect(stored).toMatchObject({
      keys: [{ name: "default", version: rotated.json().version, key: "sk-openai-real-do-0001" }],
    });
    const app = (await call("POST", "/app-tokens", adminToken, { name: "real" })).json();
    const proxied = await call(
      "POST",
      `/v1/${accountId}/chat/openai/chat/completions`,
      app.token,
      {},
    );
    expect(proxied.status).toBe(200);
    expect(sent.at(-1)?.authorization).toBe("Bearer sk-openai-real-do-0001");
    const view = (await call("GET", "/keys/openai", adminToken)).json();
    expect(view.current.version).toBe(rotated.json().version);
    // The call reached the provider's ProviderMonitor (a report is urgent after the first call).
    expect(view.pool[0]).toMatchObject({
      name: "default",
      health: { state: "available", lastStatus: 200 },
      usage: { calls: 1, ok: 1 },
    });
  });

  it("a ledger written before pools is moved to the default key of each pool", async () => {
    const { call, workerEnv } = setUp();
    const ledger = workerEnv.KEY_LEDGER.get(workerEnv.KEY_LEDGER.idFromName("key-ledger"));
    const metadata = {
      provider: "openai",
      version: "1772366400000-legacy1",
      rotatedAt: 1772366400000,
      expiresAt: null,
      fingerprint: "sha256:000000000000",
      label: "before pools",
      retiredAt: null,
      revokedAt: null,
    };
    await runInDurableObject(
      ledger as never,
      async (_instance, state: { storage: OwedStorage }) => {
        await state.storage.put("pointer:openai", {
          current: metadata.version,
          previous: null,
          switchedAt: metadata.rotatedAt,
          revision: 1,
        });
        await state.storage.put(`version:openai:${metadata.version}`, {
          metadata,
          key: "sk-openai-legacy-0001",
        });
        await state.storage.put("revision", 1);
      },
    );
    const view = (await call("GET", "/keys/openai", adminToken)).json();
    expect(view.pool).toEqual([
      expect.objectContaining({
        name: "default",
        current: expect.objectContaining({ version: metadata.version }),
      }),
    ]);
    const rotated = await call("PUT", "/keys/openai/secondary", adminToken, {
      key: "sk-openai-second-0001",
    });
    expect(rotated.status).toBe(201);
    const edge = JSON.parse((await workerEnv.KEYS.get("current:openai", "text")) ?? "{}");
    expect(edge.keys.map((key: { name: string; key: string }) => [key.name, key.key])).toEqual([
      ["default", "sk-openai-legacy-0001"],
      ["secondary", "sk-openai-second-0001"],
    ]);
  });

  it("an edge write still owed is made by the object's alarm, from the ledger's truth", async () => {
    const { call, workerEnv } = setUp();
    const rotated = await call("PUT", "/keys/openai", adminToken, { key: "sk-openai-owed-000001" });
    // As if the write-through had failed: KV lost the record, the outbox still owes it.
    await workerEnv.KEYS.delete("current:openai");
    const ledger = workerEnv.KEY_LEDGER.get(workerEnv.KEY_LEDGER.idFromName("key-ledger"));
    await runInDurableObject(
      ledger as never,
      async (_instance, state: { storage: OwedStorage }) => {
        await state.storage.put("outbox:kv:current:openai", {
          target: "kv",
          entry: "current:openai",
          revision: rotated.json().revision,
          attempts: 1,
          notBefore: 0,
        });
        await state.storage.setAlarm(Date.now() + 60_000);
      },
    );
    expect(await workerEnv.KEYS.get("current:openai", "text")).toBeNull();
    expect(await runDurableObjectAlarm(ledger as never)).toBe(true);
    const edge = JSON.parse((await workerEnv.KEYS.get("current:openai", "text")) ?? "{}");
    expect(edge).toMatchObject({
      keys: [{ version: rotated.json().version, key: "sk-openai-owed-000001" }],
    });
  });

  it("AppLimiter: 60 parallel requests against a limit of 10 allow exactly 10", async () => {
    const { call } = setUp();
    await call("PUT", "/keys/openai", adminToken, { key: "sk-openai-limits-00001" });
    const app = (
      await call("POST", "/app-tokens", adminToken, {
        name: "limited",
        rateLimit: { limit: 10, windowSeconds: 3600 },
      })
    ).json();
    const statuses = await Promise.all(
      Array.from(
        { length: 60 },
        async () =>
          (await call("POST", `/v1/${accountId}/chat/openai/models`, app.token, {})).status,
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(50);
  });
});
