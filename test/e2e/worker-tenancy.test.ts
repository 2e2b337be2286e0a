/**
 * Issue #23: apps behind one Worker are tenants. The deployed bundle in workerd in front of the
 * emulated gateway, which caches as Cloudflare documents (by request, or by `cf-aig-cache-key`;
 * caching.mdx: "Subsequent requests with the same header will return the cached response").
 * Before the fix, app B sent `gpt-4o` with `cf-aig-cache-key: K`, app A then sent `gpt-4o-mini`,
 * another question, with the same key and received B's answer (`HIT`); without a key two apps
 * sending one body shared one cached answer, so `cf-aig-cache-status` told one what the other had
 * asked. And an app's `cf-aig-metadata: {"app":"victim"}`, custom cost, `collect-log: false` and
 * event id reached the gateway's logs as sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig, type StepwiseConfig, workerViewText } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { createAppToken, rotateKey } from "../../src/worker-admin/index.ts";
import {
  buildWorkerBundle,
  type RunningWorker,
  startWorker,
  type WorkerBundle,
} from "./worker-harness.ts";

const adminToken = "e2e-tenancy-admin-token-01234";
const openaiKey = "sk-openai-e2e-tenancy-0001";
const route = [{ provider: "openai", model: "gpt-4o-mini" }];

const config: StepwiseConfig = parseConfig({
  accountId: "0123456789abcdef0123456789abcdef",
  gateways: [
    { id: "cached", authentication: true, cache: { ttl: 300 }, routes: { default: route } },
    {
      id: "shared",
      authentication: true,
      cache: { ttl: 300, shareBetweenApps: true },
      routes: { default: route },
    },
    { id: "plain", authentication: true, routes: { default: route } },
    // Caching turned on in the dashboard, behind the config's back (the emulator's settings).
    { id: "dashboard", authentication: true, cache: { ttl: 300 }, routes: { default: route } },
  ],
  keys: { providers: ["openai"] },
  worker: { healthProbe: { enabled: false } },
});

/** What the Worker is told: the `dashboard` gateway's config names no TTL. */
const workerConfig: StepwiseConfig = {
  ...config,
  gateways: config.gateways.map((gateway) =>
    gateway.id === "dashboard"
      ? { ...gateway, cache: { ...gateway.cache, ttl: 0, shareBetweenApps: false } }
      : gateway,
  ),
};

let bundle: WorkerBundle;
let emulator: Emulator;
let worker: RunningWorker;
const apps: Record<"a" | "b", { id: string; token: string }> = {
  a: { id: "", token: "" },
  b: { id: "", token: "" },
};

beforeAll(async () => {
  bundle = await buildWorkerBundle();
  emulator = await startEmulator({
    config,
    gatewayToken: "e2e-tenancy-gateway-token",
    mockKeys: { openai: [openaiKey] },
  });
  worker = await startWorker(bundle.scriptPath, {
    ROTATE_TOKEN: adminToken,
    GATEWAY_TOKEN: emulator.gatewayToken,
    GATEWAY_URL: emulator.url,
    STEPWISE_CONFIG: workerViewText(workerConfig),
  });
  const admin = { workerUrl: worker.url, token: adminToken, fetch: globalThis.fetch };
  await rotateKey({ ...admin, provider: "openai", key: openaiKey, label: "e2e" });
  apps.a = await createAppToken({ ...admin, name: "app-a" });
  apps.b = await createAppToken({ ...admin, name: "app-b" });
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await emulator?.close();
  await bundle?.remove();
});

/** A compat call through the Worker; the answer's cache status and model. */
async function ask(
  app: "a" | "b",
  gateway: string,
  model: string,
  question: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; cache: string | null; model: string; headers: Headers }> {
  const response = await fetch(
    `${worker.url}/v1/${config.accountId}/${gateway}/compat/chat/completions`,
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${apps[app].token}`,
        ...headers,
      },
      body: JSON.stringify({
        model: `openai/${model}`,
        messages: [{ role: "user", content: question }],
      }),
    },
  );
  const body = (await response.json()) as { model?: string };
  return {
    status: response.status,
    cache: response.headers.get("cf-aig-cache-status"),
    model: body.model ?? "",
    headers: response.headers,
  };
}

describe("cached answers belong to the app that asked", () => {
  it("app A never receives app B's answer under the same cf-aig-cache-key; each app still hits its own", async () => {
    const key = { "cf-aig-cache-key": "K" };
    const first = await ask("b", "cached", "gpt-4o", "B's question", key);
    expect(first).toMatchObject({ status: 200, cache: "MISS" });
    const other = await ask("a", "cached", "gpt-4o-mini", "A's question", key);
    expect(other.status).toBe(200);
    expect(other.cache).toBe("MISS");
    expect(other.model).toContain("gpt-4o-mini");
    // The key still works as the app meant, within the app.
    expect(await ask("a", "cached", "gpt-4o-mini", "A again", key)).toMatchObject({
      cache: "HIT",
    });
    const again = await ask("b", "cached", "gpt-4o", "B again", key);
    expect(again.cache).toBe("HIT");
    expect(again.model).not.toContain("mini");
  });

  it("without a key, the same body from two apps is two cached answers, so the status tells A nothing of B", async () => {
    const question = "What did the other team ask?";
    expect((await ask("b", "cached", "gpt-4o-mini", question)).cache).toBe("MISS");
    expect((await ask("a", "cached", "gpt-4o-mini", question)).cache).toBe("MISS");
    expect((await ask("a", "cached", "gpt-4o-mini", question)).cache).toBe("HIT");
  });

  it("a gateway with cache.shareBetweenApps keeps one cache for every app, on purpose", async () => {
    const question = "One shared answer";
    expect((await ask("b", "shared", "gpt-4o-mini", question)).cache).toBe("MISS");
    expect((await ask("a", "shared", "gpt-4o-mini", question)).cache).toBe("HIT");
  });

  it("a cache enabled in the dashboard, which the Worker's config does not name, never answers another app", async () => {
    // The Worker sends such a call with cf-aig-skip-cache: true, which the emulator honours as
    // caching.mdx says: "Skip cache refers to bypassing the cache and fetching the request
    // directly from the original provider, without utilizing any cached copy."
    const question = "Asked behind the config's back";
    expect((await ask("b", "dashboard", "gpt-4o-mini", question)).cache).not.toBe("HIT");
    expect((await ask("a", "dashboard", "gpt-4o-mini", question)).cache).not.toBe("HIT");
    const keyed = { "cf-aig-cache-key": "K2" };
    await ask("b", "dashboard", "gpt-4o", "B's keyed question", keyed);
    const other = await ask("a", "dashboard", "gpt-4o-mini", "A's keyed question", keyed);
    expect(other.cache).not.toBe("HIT");
    expect(other.model).toContain("gpt-4o-mini");
    // The same call straight to the gateway shows the dashboard's cache is on.
    const direct = async () =>
      fetch(`${emulator.url}/v1/${config.accountId}/dashboard/compat/chat/completions`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "cf-aig-authorization": `Bearer ${emulator.gatewayToken}`,
          authorization: `Bearer ${openaiKey}`,
        },
        body: JSON.stringify({
          model: "openai/gpt-4o-mini",
          messages: [{ role: "user", content: "Straight to the gateway" }],
        }),
      });
    expect((await direct()).headers.get("cf-aig-cache-status")).toBe("MISS");
    expect((await direct()).headers.get("cf-aig-cache-status")).toBe("HIT");
  });

  it("where the gateway does not cache, the Worker sends no key that would turn caching on", async () => {
    const question = "Not cached anywhere";
    await ask("a", "plain", "gpt-4o-mini", question);
    expect((await ask("a", "plain", "gpt-4o-mini", question)).cache).not.toBe("HIT");
  });
});

describe("an app's call reaches the gateway's logs as that app's", () => {
  it("metadata names the calling app, controls are dropped, the event id is the app's own", async () => {
    const answer = await ask("a", "plain", "gpt-4o-mini", "log me", {
      "cf-aig-metadata": '{"app":"victim","team":"checkout"}',
      "cf-aig-custom-cost": '{"per_token_in":0,"per_token_out":0}',
      "cf-aig-collect-log": "false",
      "cf-aig-event-id": "call-7",
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cf-aig-event-id")).toBe("call-7");
    // collect-log: false was dropped, so the call has its log record.
    const record = emulator.logs("plain").at(-1);
    expect(record).toBeDefined();
    expect(JSON.parse(record!.metadata!)).toEqual({ app: apps.a.id, team: "checkout" });
    expect(record!.custom_cost).toBe(false);
    expect(record!.event_id).toBe(`${apps.a.id}:call-7`);
  });
});

describe("an app's allow-lists", () => {
  it("a call outside them is a 403 JSON that never reaches the gateway", async () => {
    const narrow = await createAppToken({
      workerUrl: worker.url,
      token: adminToken,
      fetch: globalThis.fetch,
      name: "narrow",
      allow: { gateways: ["plain"], providers: ["openai"] },
    });
    const logged = emulator.logs("cached").length;
    const response = await fetch(
      `${worker.url}/v1/${config.accountId}/cached/compat/chat/completions`,
      {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${narrow.token}` },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [] }),
      },
    );
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: "not_allowed" } });
    expect(emulator.logs("cached")).toHaveLength(logged);
  });
});
