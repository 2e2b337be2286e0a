/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * Several keys per provider (issue #14 item 3) and provider limits known before they bite
 * (item 4), in workerd: calls spread across a pool's healthy keys; a 429 or 401/403 for one key
 * moves to the next key before the gateway moves to the next provider; a key whose provider
 * reported no quota left, or that reached its configured rpm/tpm, is not sent at all; per-key
 * health and usage in GET /keys; the pool operations of the admin API.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import {
  accountId,
  createHarness,
  credentialOf,
  type GatewayBehaviour,
  testConfig,
} from "./harness.ts";

afterEach(async () => {
  await reset();
});

const universal = (...providers: string[]) =>
  providers.map((provider) => ({
    provider,
    endpoint: provider === "anthropic" ? "v1/messages" : "chat/completions",
    query: { model: provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o-mini" },
  }));

const okHeaders = (step: number) => ({
  "content-type": "application/json",
  "cf-aig-step": String(step),
});

/**
 * A gateway whose providers answer 429 for `limited` keys, 401 for keys they do not know, and
 * 200 otherwise; the universal endpoint serves from the first step that answers 200.
 */
function gatewayWith(limited: Set<string>, served: string[]): GatewayBehaviour {
  return (call, validKeys) => {
    const answer = (provider: string, key: string | undefined) =>
      key !== undefined && limited.has(key)
        ? 429
        : key !== undefined && validKeys.get(provider)?.has(key)
          ? 200
          : 401;
    const path = new URL(call.url).pathname.split("/").filter(Boolean);
    if (path.length === 3) {
      const steps = JSON.parse(call.body) as {
        provider: string;
        headers: Record<string, string>;
      }[];
      for (const [index, step] of steps.entries()) {
        const key = credentialOf(step.provider, step.headers);
        if (answer(step.provider, key) === 200) {
          served.push(`${step.provider}:${key}`);
          return new Response('{"ok":true}', { headers: okHeaders(index) });
        }
      }
      return new Response('{"error":"rate limited"}', {
        status: 429,
        headers: okHeaders(steps.length - 1),
      });
    }
    const provider = path[3]!;
    const key = credentialOf(provider, call.headers);
    const status = answer(provider, key);
    if (status === 200) served.push(`${provider}:${key}`);
    return new Response(status === 200 ? '{"ok":true}' : '{"error":"no"}', {
      status,
      // No cf-aig-step: Cloudflare documents it for the universal endpoint only.
      headers: {
        "content-type": "application/json",
        ...(status === 429 ? { "retry-after": "30" } : {}),
      },
    });
  };
}

describe("key pools: several keys per provider", () => {
  it("a provider with two keys, one rate-limited, serves every call from the other key without falling back to the next provider", async () => {
    const served: string[] = [];
    const harness = createHarness({
      gateway: gatewayWith(new Set(["sk-openai-limited-0001"]), served),
    });
    await harness.rotate("openai", "sk-openai-limited-0001");
    await harness.advance(1000); // KV takes one write of current:openai per second
    await harness.call("PUT", "/keys/openai/secondary", { body: { key: "sk-openai-spare-00002" } });
    await harness.rotate("anthropic", "sk-ant-fallback-00001");
    harness.acceptKeys("openai", "sk-openai-limited-0001", "sk-openai-spare-00002");
    harness.acceptKeys("anthropic", "sk-ant-fallback-00001");
    const app = await harness.createApp();
    for (let call = 0; call < 10; call++) {
      const response = await harness.call("POST", `/v1/${accountId}/chat`, {
        token: app.token,
        body: universal("openai", "anthropic"),
      });
      expect(response.status).toBe(200);
      // The app's step 0 (openai) served, whichever copy of it the gateway was sent.
      expect(response.headers.get("cf-aig-step")).toBe("0");
      await harness.advance(100);
    }
    expect(served).toEqual(Array(10).fill("openai:sk-openai-spare-00002"));
    // After the first call the rate-limited key is not even sent while it cools down.
    const sentLimited = harness.gatewayCalls.filter((call) =>
      call.body.includes("sk-openai-limited-0001"),
    );
    expect(sentLimited.length).toBe(1);
    const view = (await harness.call("GET", "/keys/openai")).json();
    expect(view.pool.map((key: { name: string }) => key.name)).toEqual(["default", "secondary"]);
    expect(view.pool[0]).toMatchObject({
      health: { state: "cooling-down", reason: "fell-through" },
      usage: { fellThrough: 1 },
    });
    expect(view.pool[1]).toMatchObject({
      health: { state: "available", lastStatus: 200 },
      usage: { calls: 10, ok: 10, rateLimited: 0 },
    });
    expect(JSON.stringify(view)).not.toContain("sk-openai");
  });

  it("rewrites the app's place in its route for the steps it sends, and points at the route's step", async () => {
    const served: string[] = [];
    const harness = createHarness({
      gateway: gatewayWith(new Set(["sk-openai-limited-0001"]), served),
    });
    await harness.rotate("openai", "sk-openai-limited-0001");
    await harness.advance(1000);
    await harness.call("PUT", "/keys/openai/secondary", { body: { key: "sk-openai-spare-00002" } });
    await harness.rotate("anthropic", "sk-ant-fallback-00001");
    harness.acceptKeys("openai", "sk-openai-limited-0001", "sk-openai-spare-00002");
    harness.acceptKeys("anthropic", "sk-ant-fallback-00001");
    const app = await harness.createApp();
    // The app re-sent the rest of its route (route steps 1 and 2) after 30 ms.
    const metadata = { route: "default", stepwise: "attempt=2;steps=1.2;elapsed=30", plan: "pro" };
    const response = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("openai", "anthropic"),
      headers: { "cf-aig-metadata": JSON.stringify(metadata), "cf-aig-event-id": "call-7" },
    });
    expect(response.status).toBe(200);
    // The app's own step 0 of its request served (the second copy of openai at the gateway).
    expect(response.headers.get("cf-aig-step")).toBe("0");
    const sent = JSON.parse(harness.gatewayCalls.at(-1)!.headers["cf-aig-metadata"]!);
    // openai went once per key: both copies are route step 1; anthropic is route step 2. The
    // Worker writes the app's id into the metadata itself (app-scope.ts).
    expect(sent).toEqual({
      app: app.id,
      ...metadata,
      stepwise: "attempt=2;steps=1.1.2;elapsed=30",
    });
    const point = harness.events.at(-1)!;
    // double1: the route's step; double9: the attempt; the place is not a metadata column.
    expect(point.doubles?.[0]).toBe(1);
    expect(point.doubles?.[8]).toBe(2);
    expect(point.doubles?.[2]).toBeGreaterThanOrEqual(30);
    expect(point.blobs?.slice(10)).toEqual(["plan=pro", "route=default"]);
  });

  it("spreads calls across the healthy keys of a pool", async () => {
    const served: string[] = [];
    const harness = createHarness({ gateway: gatewayWith(new Set(), served) });
    await harness.rotate("openai", "sk-openai-first-00001");
    await harness.advance(1000); // KV takes one write of current:openai per second
    await harness.call("PUT", "/keys/openai/second", { body: { key: "sk-openai-second-0002" } });
    harness.acceptKeys("openai", "sk-openai-first-00001", "sk-openai-second-0002");
    const app = await harness.createApp();
    for (let call = 0; call < 6; call++) {
      await harness.call("POST", `/v1/${accountId}/chat/openai/chat/completions`, {
        token: app.token,
        body: { model: "gpt-4o-mini" },
      });
    }
    expect(served.filter((entry) => entry.endsWith("first-00001"))).toHaveLength(3);
    expect(served.filter((entry) => entry.endsWith("second-0002"))).toHaveLength(3);
  });

  it("provider-native: a 429 for one key is sent again with the next key; the app sees one answer", async () => {
    const served: string[] = [];
    const harness = createHarness({
      gateway: gatewayWith(new Set(["sk-ant-limited-000001"]), served),
    });
    await harness.rotate("anthropic", "sk-ant-limited-000001");
    await harness.advance(1000);
    await harness.call("PUT", "/keys/anthropic/backup", { body: { key: "sk-ant-backup-0000002" } });
    harness.acceptKeys("anthropic", "sk-ant-limited-000001", "sk-ant-backup-0000002");
    const app = await harness.createApp();
    const path = `/v1/${accountId}/chat/anthropic/v1/messages`;
    for (let call = 0; call < 4; call++) {
      const response = await harness.call("POST", path, {
        token: app.token,
        body: '{"max_tokens":1}',
        // A body of known length is held so it can be sent again with the next key.
        headers: { "content-length": "16" },
      });
      expect(response.status).toBe(200);
    }
    expect(served).toEqual(Array(4).fill("anthropic:sk-ant-backup-0000002"));
    // The 429 said retry-after: 30 s; until then the limited key is skipped.
    expect(
      harness.gatewayCalls.filter((call) => call.headers["x-api-key"] === "sk-ant-limited-000001"),
    ).toHaveLength(1);
    const view = (await harness.call("GET", "/keys/anthropic")).json();
    expect(view.pool[0]).toMatchObject({
      name: "default",
      health: { state: "cooling-down", reason: "rate-limited", lastStatus: 429 },
      usage: { rateLimited: 1 },
    });
    expect(Date.parse(view.pool[0].health.until) - harness.now()).toBeLessThanOrEqual(30_000);
  });
});

describe("the gateway's own refusals are not the key's", () => {
  it("provider-native: a provider's 401 for a revoked key (no cf-aig-step, no rate-limit headers) moves to the next key", async () => {
    const served: string[] = [];
    const harness = createHarness({ gateway: gatewayWith(new Set(), served) });
    await harness.rotate("openai", "sk-openai-revoked-001");
    await harness.advance(1000);
    await harness.call("PUT", "/keys/openai/second", { body: { key: "sk-openai-second-0002" } });
    // The provider knows only the second key: the first was revoked at the provider.
    harness.acceptKeys("openai", "sk-openai-second-0002");
    const app = await harness.createApp();
    const response = await harness.call("POST", `/v1/${accountId}/chat/openai/chat/completions`, {
      token: app.token,
      body: "{}",
      headers: { "content-length": "2" },
    });
    expect(response.status).toBe(200);
    expect(served).toEqual(["openai:sk-openai-second-0002"]);
    const view = (await harness.call("GET", "/keys/openai")).json();
    expect(view.pool[0].health).toMatchObject({
      state: "cooling-down",
      reason: "refused",
      lastStatus: 401,
    });
  });

  it("a gateway's own 401 (an AiGatewayError: a wrong gateway token) is passed on as it came and cools no key", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-first-00001");
    await harness.advance(1000);
    await harness.call("PUT", "/keys/openai/second", { body: { key: "sk-openai-second-0002" } });
    const body =
      '{"success":false,"error":[{"code":2009,"message":"Unauthorized"}],"name":"AiGatewayError","httpCode":401}';
    harness.setGateway(
      () => new Response(body, { status: 401, headers: { "content-type": "application/json" } }),
    );
    const app = await harness.createApp();
    const refused = await harness.call("POST", `/v1/${accountId}/chat/openai/chat/completions`, {
      token: app.token,
      body: "{}",
      headers: { "content-length": "2" },
    });
    expect(refused.status).toBe(401);
    expect(refused.text).toBe(body);
    expect(harness.gatewayCalls).toHaveLength(1);
    const view = (await harness.call("GET", "/keys/openai")).json();
    expect(view.pool.map((key: { health: { state: string } }) => key.health.state)).toEqual([
      "available",
      "available",
    ]);
  });

  it("a gateway rate limit (429 without cf-aig-step) is passed on, not retried with the next key, and cools no key", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-first-00001");
    await harness.advance(1000);
    await harness.call("PUT", "/keys/openai/second", { body: { key: "sk-openai-second-0002" } });
    harness.setGateway(
      () =>
        new Response('{"success":false,"error":[{"code":2003,"message":"Rate limited"}]}', {
          status: 429,
          headers: { "content-type": "application/json" },
        }),
    );
    const app = await harness.createApp();
    const path = `/v1/${accountId}/chat/openai/chat/completions`;
    const refused = await harness.call("POST", path, {
      token: app.token,
      body: "{}",
      headers: { "content-length": "2" },
    });
    expect(refused.status).toBe(429);
    expect(harness.gatewayCalls).toHaveLength(1);
    const view = (await harness.call("GET", "/keys/openai")).json();
    expect(view.pool.map((key: { health: { state: string } }) => key.health.state)).toEqual([
      "available",
      "available",
    ]);
  });
});

describe("provider limits known before they bite", () => {
  it("a key whose provider reported no requests left is not sent until the reset; with no other key the answer is a 429", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-quota-00001");
    harness.setGateway(
      () =>
        new Response('{"ok":true}', {
          headers: {
            "content-type": "application/json",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "20s",
          },
        }),
    );
    const app = await harness.createApp();
    const path = `/v1/${accountId}/chat/openai/chat/completions`;
    expect((await harness.call("POST", path, { token: app.token, body: {} })).status).toBe(200);
    const capped = await harness.call("POST", path, { token: app.token, body: {} });
    expect(capped.status).toBe(429);
    expect(capped.json().error.code).toBe("provider_at_cap");
    expect(capped.headers.get("retry-after")).toBe("20");
    expect(harness.gatewayCalls).toHaveLength(1);
    await harness.advance(20_000);
    expect((await harness.call("POST", path, { token: app.token, body: {} })).status).toBe(200);
    expect(harness.gatewayCalls).toHaveLength(2);
  });

  it("anthropic's rate-limit headers are read the same way", async () => {
    const harness = createHarness();
    await harness.rotate("anthropic", "sk-ant-quota-0000001");
    harness.setGateway(
      () =>
        new Response('{"ok":true}', {
          headers: {
            "content-type": "application/json",
            "anthropic-ratelimit-tokens-remaining": "0",
            "anthropic-ratelimit-tokens-reset": new Date(harness.now() + 7_000).toISOString(),
            "anthropic-ratelimit-requests-remaining": "99",
          },
        }),
    );
    const app = await harness.createApp();
    const path = `/v1/${accountId}/chat/anthropic/v1/messages`;
    await harness.call("POST", path, { token: app.token, body: {} });
    const capped = await harness.call("POST", path, { token: app.token, body: {} });
    expect(capped.status).toBe(429);
    expect(capped.headers.get("retry-after")).toBe("7");
    const view = (await harness.call("GET", "/keys/anthropic")).json();
    expect(view.pool[0].health).toMatchObject({
      state: "at-cap",
      reason: "the provider reported no tokens left",
      quota: { requestsRemaining: 99, tokensRemaining: 0 },
    });
  });

  it("a configured rpm cap skips the provider's step in a chain once the minute's requests are spent", async () => {
    const served: string[] = [];
    const harness = createHarness({
      config: testConfig({
        keys: {
          providers: ["anthropic", "openai", "google-ai-studio"],
          caps: { openai: { rpm: 2 } },
        },
      }),
      gateway: gatewayWith(new Set(), served),
    });
    await harness.rotate("openai", "sk-openai-capped-0001");
    await harness.rotate("anthropic", "sk-ant-uncapped-0001");
    harness.acceptKeys("openai", "sk-openai-capped-0001");
    harness.acceptKeys("anthropic", "sk-ant-uncapped-0001");
    const app = await harness.createApp();
    const steps: (string | null)[] = [];
    for (let call = 0; call < 3; call++) {
      const response = await harness.call("POST", `/v1/${accountId}/chat`, {
        token: app.token,
        body: universal("openai", "anthropic"),
      });
      expect(response.status).toBe(200);
      steps.push(response.headers.get("cf-aig-step"));
    }
    // The third call never sends openai: anthropic (the app's step 1) serves it.
    expect(steps).toEqual(["0", "0", "1"]);
    expect(served).toEqual([
      "openai:sk-openai-capped-0001",
      "openai:sk-openai-capped-0001",
      "anthropic:sk-ant-uncapped-0001",
    ]);
    expect(harness.gatewayCalls.at(-1)!.body).not.toContain('"openai"');
    const only = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("openai"),
    });
    expect(only.status).toBe(429);
    expect(only.json().error.message).toContain("rpm 2 reached");
    await harness.advance(60_000);
    expect(
      (
        await harness.call("POST", `/v1/${accountId}/chat`, {
          token: app.token,
          body: universal("openai"),
        })
      ).status,
    ).toBe(200);
  });
});

describe("key pools: admin API", () => {
  it("adds, rotates, rolls back, revokes and removes named keys; KV holds the pool", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-default-001");
    await harness.advance(1000); // KV takes one write of current:openai per second
    const added = await harness.call("PUT", "/keys/openai/secondary", {
      body: { key: "sk-openai-second-0001", label: "spare" },
    });
    expect(added.status).toBe(201);
    expect(added.json()).toMatchObject({
      provider: "openai",
      name: "secondary",
      poolSize: 2,
      state: "current",
    });
    const edge = () => JSON.parse(harness.kv.peek("edge-a", "current:openai") ?? "null");
    expect(edge().keys.map((key: { name: string }) => key.name)).toEqual(["default", "secondary"]);
    await harness.advance(1000);
    const rotated = (
      await harness.call("PUT", "/keys/openai/secondary", {
        body: { key: "sk-openai-second-0002" },
      })
    ).json();
    expect(rotated.previous).toBe(added.json().version);
    await harness.advance(1000);
    const back = await harness.call("POST", "/keys/openai/secondary/rollback");
    expect(back.status).toBe(200);
    expect(back.json().pool[1].current.version).toBe(added.json().version);
    await harness.advance(1000);
    const revoked = await harness.call("DELETE", `/keys/openai/secondary/${rotated.version}`);
    expect(revoked.status).toBe(200);
    expect(
      revoked
        .json()
        .pool[1].versions.find((v: { version: string }) => v.version === rotated.version).state,
    ).toBe("revoked");
    await harness.advance(1000);
    const removed = await harness.call("DELETE", "/keys/openai/secondary");
    expect(removed.status).toBe(200);
    expect(removed.json().pool[1]).toMatchObject({
      name: "secondary",
      current: null,
      flags: ["no-key"],
    });
    expect(edge().keys.map((key: { name: string }) => key.name)).toEqual(["default"]);
    // Its values are never injected again, but stay listed for the scrubber: an answer the
    // gateway cached while they were in use may still carry them (issue #23).
    expect(JSON.stringify(edge().keys)).not.toContain("sk-openai-second");
    expect(edge().retired).toEqual(["sk-openai-second-0001", "sk-openai-second-0002"]);
    // The default key's routes still answer as before pools.
    expect((await harness.call("GET", "/keys/openai")).json().current.version).toBeDefined();
    expect((await harness.call("DELETE", "/keys/openai/secondary")).json().error.code).toBe(
      "unknown_key",
    );
  });
});
