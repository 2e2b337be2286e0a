/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * Apps are tenants (issue #23): what an app sends reaches the gateway scoped to the app its token
 * names, whatever endpoint it calls. Before, `cf-aig-custom-cost: {"per_token_in":0,…}` (cost 0
 * dodges spend limits), `cf-aig-collect-log: false` (no log record), `cf-aig-byok-alias` (another
 * team's stored key), `cf-aig-metadata: {"app":"victim"}` and `cf-aig-event-id` all reached the
 * gateway unchanged. The Worker in workerd, in front of the harness's recording gateway.
 */
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { accountId, createHarness, defaultGateway, type Harness, testConfig } from "./harness.ts";

afterEach(async () => {
  await reset();
});

const controls = {
  "cf-aig-custom-cost": '{"per_token_in":0,"per_token_out":0}',
  "cf-aig-collect-log": "false",
  "cf-aig-collect-log-payload": "false",
  "cf-aig-byok-alias": "other-team",
};

async function createApp(harness: Harness, name: string, allow?: Record<string, unknown>) {
  const response = await harness.call("POST", "/app-tokens", {
    body: allow === undefined ? { name } : { name, allow },
  });
  expect(response.status, response.text).toBe(201);
  return response.json() as { id: string; token: string; allow: Record<string, unknown> };
}

async function withKeys(): Promise<Harness> {
  const harness = createHarness();
  await harness.rotate("openai", "sk-openai-tenancy-0001");
  await harness.rotate("anthropic", "sk-ant-tenancy-000001");
  harness.acceptKeys("openai", "sk-openai-tenancy-0001");
  return harness;
}

const compatPath = `/v1/${accountId}/chat/compat/chat/completions`;
const compatBody = { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };

describe("gateway controls from apps", () => {
  it("drops custom cost, collect-log(-payload) and the BYOK alias on every endpoint unless allowed", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "plain");
    const calls = [
      { path: compatPath, body: compatBody },
      { path: `/v1/${accountId}/chat/openai/v1/chat/completions`, body: compatBody },
      {
        path: `/v1/${accountId}/chat`,
        body: [
          {
            provider: "openai",
            endpoint: "chat/completions",
            headers: { "content-type": "application/json", ...controls },
            query: compatBody,
          },
        ],
      },
    ];
    for (const { path, body } of calls) {
      const response = await harness.call("POST", path, {
        token: app.token,
        body,
        headers: controls,
      });
      expect(response.status, path).toBe(200);
      const sent = harness.gatewayCalls.at(-1)!;
      for (const name of Object.keys(controls)) {
        expect(sent.headers[name], `${path} ${name}`).toBeUndefined();
      }
      expect(sent.body).not.toContain("cf-aig-");
    }
  });

  it("passes the controls an app's record allows, and only those", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "billing", {
      controls: ["cf-aig-custom-cost", "cf-aig-collect-log"],
    });
    expect(app.allow).toEqual({ controls: ["cf-aig-custom-cost", "cf-aig-collect-log"] });
    await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: controls,
    });
    const sent = harness.gatewayCalls.at(-1)!.headers;
    expect(sent["cf-aig-custom-cost"]).toBe(controls["cf-aig-custom-cost"]);
    expect(sent["cf-aig-collect-log"]).toBe("false");
    expect(sent["cf-aig-collect-log-payload"]).toBeUndefined();
    expect(sent["cf-aig-byok-alias"]).toBeUndefined();
  });

  it("the admin API refuses a control it does not know, without echoing it", async () => {
    const harness = createHarness();
    const response = await harness.call("POST", "/app-tokens", {
      body: { name: "x", allow: { controls: ["cf-aig-authorization"] } },
    });
    expect(response.status).toBe(400);
    expect(response.json().error.code).toBe("invalid_body");
    expect(response.json().error.message).toContain("controls");
  });
});

describe("metadata and event ids", () => {
  it("an app cannot claim another's name in cf-aig-metadata: the Worker writes app itself", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "attacker");
    await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: { "cf-aig-metadata": '{"app":"victim","route":"default","user":"u1"}' },
    });
    expect(JSON.parse(harness.gatewayCalls.at(-1)!.headers["cf-aig-metadata"]!)).toEqual({
      app: app.id,
      route: "default",
      user: "u1",
    });
    // A universal step's own metadata would win at the gateway: it is scoped the same way.
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: [
        {
          provider: "openai",
          endpoint: "chat/completions",
          headers: { "cf-aig-metadata": '{"app":"victim"}', "cf-aig-event-id": "victim:1" },
          query: compatBody,
        },
      ],
    });
    const sent = harness.gatewayCalls.at(-1)!;
    expect(JSON.parse(sent.headers["cf-aig-metadata"]!)).toEqual({ app: app.id });
    const [step] = JSON.parse(sent.body) as { headers: Record<string, string> }[];
    expect(JSON.parse(step!.headers["cf-aig-metadata"]!)).toEqual({ app: app.id });
    expect(step!.headers["cf-aig-event-id"]).toBe(`${app.id}:victim:1`);
    // Analytics Engine keeps the metadata as sent upstream, the app in its own blob (blob7).
    expect(harness.events[0]!.blobs?.[6]).toBe(app.id);
    expect(harness.events[0]!.blobs).toEqual(expect.arrayContaining(["route=default", "user=u1"]));
    expect(harness.events[0]!.blobs).not.toContain("app=victim");
  });

  it("refuses malformed metadata with a JSON 400 before anything goes upstream", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "sloppy");
    const response = await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: { "cf-aig-metadata": '{"team":{"nested":true}}' },
    });
    expect(response.status).toBe(400);
    expect(response.json().error.code).toBe("invalid_metadata");
    expect(harness.gatewayCalls).toHaveLength(0);
  });

  it("refuses an event id too long once prefixed with a JSON 400 before anything goes upstream", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "verbose");
    const limit = 256 - `${app.id}:`.length;
    const response = await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: { "cf-aig-event-id": "e".repeat(limit + 1) },
    });
    expect(response.status).toBe(400);
    expect(response.json().error.code).toBe("invalid_event_id");
    expect(response.json().error.message).toContain(`at most ${limit}`);
    expect(harness.gatewayCalls).toHaveLength(0);
  });

  it("the event id goes upstream as <app>:<id>, comes back as the app sent it, and is kept prefixed in Analytics Engine", async () => {
    const harness = await withKeys();
    harness.setGateway(async (call, keys) => {
      const answer = await defaultGateway(call, keys);
      const headers = new Headers(answer.headers);
      const eventId = call.headers["cf-aig-event-id"];
      if (eventId !== undefined) headers.set("cf-aig-event-id", eventId);
      return new Response(answer.body, { status: answer.status, headers });
    });
    const app = await createApp(harness, "events");
    const response = await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: { "cf-aig-event-id": "call-42" },
    });
    expect(harness.gatewayCalls.at(-1)!.headers["cf-aig-event-id"]).toBe(`${app.id}:call-42`);
    expect(response.headers.get("cf-aig-event-id")).toBe("call-42");
    expect(harness.events).toHaveLength(1);
    expect(harness.events[0]!.blobs).toContain(`${app.id}:call-42`);
  });
});

describe("allow-lists in the app's record", () => {
  it("a call to a gateway, provider or route outside the app's lists is a 403 JSON and never goes upstream", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "narrow", {
      gateways: ["chat"],
      providers: ["openai"],
      routes: ["default"],
    });
    expect(app.allow).toEqual({ gateways: ["chat"], providers: ["openai"], routes: ["default"] });
    const route = { "cf-aig-metadata": '{"route":"default"}' };
    const refusals = [
      // Another gateway.
      { path: `/v1/${accountId}/batch/groq/chat/completions`, body: compatBody, headers: route },
      // Another provider: provider-native, compat, one universal step among allowed ones.
      { path: `/v1/${accountId}/chat/anthropic/v1/messages`, body: compatBody, headers: route },
      {
        path: compatPath,
        body: { ...compatBody, model: "anthropic/claude-sonnet-4-5" },
        headers: route,
      },
      {
        path: `/v1/${accountId}/chat`,
        body: [
          { provider: "openai", endpoint: "chat/completions", query: compatBody },
          { provider: "anthropic", endpoint: "v1/messages", query: compatBody },
        ],
        headers: route,
      },
      // Another route, or none named.
      { path: compatPath, body: compatBody, headers: { "cf-aig-metadata": '{"route":"other"}' } },
      { path: compatPath, body: compatBody, headers: {} },
      { path: compatPath, body: { ...compatBody, model: "dynamic/other" }, headers: {} },
    ];
    for (const { path, body, headers } of refusals) {
      const response = await harness.call("POST", path, { token: app.token, body, headers });
      expect(response.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(403);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(response.json().error).toMatchObject({ code: "not_allowed" });
      expect(response.json().error.message).toContain("narrow");
    }
    expect(harness.gatewayCalls).toHaveLength(0);
    // Inside the lists, the call goes as before.
    const allowed = await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: route,
    });
    expect(allowed.status).toBe(200);
    const dynamic = await harness.call("POST", compatPath, {
      token: app.token,
      body: { ...compatBody, model: "dynamic/default" },
    });
    expect(dynamic.status).not.toBe(403);
    expect(harness.gatewayCalls).toHaveLength(2);
  });

  it("the admin API refuses an allow-list naming a gateway the Worker does not serve or an unknown provider", async () => {
    const harness = createHarness();
    const response = await harness.call("POST", "/app-tokens", {
      body: { name: "typo", allow: { gateways: ["chta"], providers: ["opneai", "openai"] } },
    });
    expect(response.status).toBe(400);
    expect(response.json().error.code).toBe("invalid_body");
    expect(response.json().error.message).toContain("gateway chta is not one this Worker serves");
    expect(response.json().error.message).toContain("provider opneai is not a provider");
    expect((await harness.call("GET", "/app-tokens")).json().apps).toEqual([]);
  });

  it("an app over its limit gets the 429 first, whatever it calls", async () => {
    const harness = await withKeys();
    const response = await harness.call("POST", "/app-tokens", {
      body: {
        name: "busy",
        rateLimit: { limit: 1, windowSeconds: 60 },
        allow: { providers: ["openai"] },
      },
    });
    const app = response.json() as { token: string };
    expect(
      (await harness.call("POST", compatPath, { token: app.token, body: compatBody })).status,
    ).toBe(200);
    // A provider outside the list, provider-native and compat: over the limit, the 429 it is.
    for (const [path, body] of [
      [`/v1/${accountId}/chat/anthropic/v1/messages`, compatBody],
      [compatPath, { ...compatBody, model: "anthropic/claude-sonnet-4-5" }],
    ] as const) {
      const over = await harness.call("POST", path, { token: app.token, body });
      expect(over.status, path).toBe(429);
    }
  });

  it("a call to a gateway outside the list does not count against the app's limit", async () => {
    const harness = await withKeys();
    const response = await harness.call("POST", "/app-tokens", {
      body: {
        name: "one",
        rateLimit: { limit: 1, windowSeconds: 60 },
        allow: { gateways: ["chat"] },
      },
    });
    const app = response.json() as { token: string };
    const other = await harness.call("POST", `/v1/${accountId}/batch/groq/chat/completions`, {
      token: app.token,
      body: compatBody,
    });
    expect(other.status).toBe(403);
    const served = await harness.call("POST", compatPath, { token: app.token, body: compatBody });
    expect(served.status).toBe(200);
  });
});

describe("the cache key the Worker sends", () => {
  /** The harness config with the `chat` gateway caching for 5 minutes. */
  const cachingConfig = () => {
    const config = testConfig();
    const [chat, ...others] = config.gateways as Record<string, unknown>[];
    return { ...config, gateways: [{ ...chat, cache: { ttl: 300 } }, ...others] };
  };

  async function cachingHarness() {
    const harness = createHarness({ config: cachingConfig() });
    await harness.rotate("openai", "sk-openai-tenancy-0001");
    harness.acceptKeys("openai", "sk-openai-tenancy-0001");
    return harness;
  }

  const sentKey = (harness: Harness) => harness.gatewayCalls.at(-1)!.headers["cf-aig-cache-key"];

  it("on a caching gateway: one key per app and call, the app's own key scoped to the app", async () => {
    const harness = await cachingHarness();
    const a = await createApp(harness, "a");
    const b = await createApp(harness, "b");
    const keys: string[] = [];
    for (const app of [a, b, a]) {
      await harness.call("POST", compatPath, { token: app.token, body: compatBody });
      keys.push(sentKey(harness)!);
    }
    expect(keys[0]).toMatch(new RegExp(`^stepwise:${a.id}:call:[0-9a-f]{64}$`));
    expect(keys[1]).toMatch(new RegExp(`^stepwise:${b.id}:call:`));
    expect(keys[2]).toBe(keys[0]);
    for (const app of [a, b]) {
      await harness.call("POST", compatPath, {
        token: app.token,
        body: compatBody,
        headers: { "cf-aig-cache-key": "K" },
      });
      expect(sentKey(harness)).toMatch(new RegExp(`^stepwise:${app.id}:key:[0-9a-f]{64}$`));
    }
    // A universal step cannot send a cache key of its own.
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: a.token,
      body: [
        {
          provider: "openai",
          endpoint: "chat/completions",
          headers: { "cf-aig-cache-key": "K" },
          query: compatBody,
        },
      ],
    });
    expect(sentKey(harness)).toMatch(new RegExp(`^stepwise:${a.id}:call:`));
    expect(harness.gatewayCalls.at(-1)!.body).not.toContain("cf-aig-cache-key");
  });

  it("a provider-native body the Worker cannot read whole skips the cache instead of sharing it", async () => {
    const harness = await cachingHarness();
    const app = await createApp(harness, "streamer");
    const encoder = new TextEncoder();
    const parts = [JSON.stringify(compatBody)];
    const response = await harness.request(
      new Request(`https://worker.test/v1/${accountId}/chat/openai/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            const next = parts.shift();
            if (next === undefined) controller.close();
            else controller.enqueue(encoder.encode(next));
          },
        }),
      }),
    );
    expect(response.status).toBe(200);
    const sent = harness.gatewayCalls.at(-1)!;
    expect(sent.headers["cf-aig-skip-cache"]).toBe("true");
    expect(sent.headers["cf-aig-cache-key"]).toBeUndefined();
    expect(sent.body).toBe(JSON.stringify(compatBody));
    // One of known length is read, keyed, and sent as it came.
    const text = JSON.stringify(compatBody);
    await harness.call("POST", `/v1/${accountId}/chat/openai/v1/chat/completions`, {
      token: app.token,
      body: text,
      headers: { "content-length": String(encoder.encode(text).byteLength) },
    });
    expect(sentKey(harness)).toMatch(new RegExp(`^stepwise:${app.id}:call:`));
    expect(harness.gatewayCalls.at(-1)!.body).toBe(JSON.stringify(compatBody));
  });

  it("on a gateway that does not cache, no key unless the app asks for caching", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "plain");
    await harness.call("POST", compatPath, { token: app.token, body: compatBody });
    expect(sentKey(harness)).toBeUndefined();
    await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: { "cf-aig-cache-ttl": "600" },
    });
    expect(sentKey(harness)).toMatch(new RegExp(`^stepwise:${app.id}:call:`));
  });

  it("where the config names no TTL the call skips the cache, so one enabled in the dashboard never answers another app", async () => {
    const harness = await withKeys();
    const app = await createApp(harness, "plain");
    const skipped = () => harness.gatewayCalls.at(-1)!.headers["cf-aig-skip-cache"];
    await harness.call("POST", compatPath, { token: app.token, body: compatBody });
    expect(skipped()).toBe("true");
    await harness.call("POST", compatPath, {
      token: app.token,
      body: compatBody,
      headers: { "cf-aig-skip-cache": "false" },
    });
    expect(skipped()).toBe("true");
    await harness.call("POST", `/v1/${accountId}/chat/openai/v1/chat/completions`, {
      token: app.token,
      body: JSON.stringify(compatBody),
    });
    expect(skipped()).toBe("true");
    // A universal step's own skip directive wins at the gateway: it is made a skip too.
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: [
        {
          provider: "openai",
          endpoint: "chat/completions",
          headers: { "cf-aig-skip-cache": "false" },
          query: compatBody,
        },
      ],
    });
    expect(skipped()).toBe("true");
    const steps = JSON.parse(harness.gatewayCalls.at(-1)!.body) as {
      headers: Record<string, string>;
    }[];
    expect(steps[0]!.headers["cf-aig-skip-cache"]).toBe("true");
  });
});
