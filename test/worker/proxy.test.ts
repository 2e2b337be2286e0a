/// <reference types="@cloudflare/vitest-pool-workers/types" />
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { accountId, createHarness, gatewayToken, gatewayUrl, testConfig } from "./harness.ts";

afterEach(async () => {
  await reset();
});

const universal = (...providers: string[]) =>
  providers.map((provider) => ({
    provider,
    endpoint: provider === "anthropic" ? "v1/messages" : "chat/completions",
    headers: { "content-type": "application/json" },
    query: {
      model: provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-4o-mini",
      messages: [{ role: "user", content: "hi" }],
    },
  }));

const stepsSent = (body: string) =>
  JSON.parse(body) as { provider: string; headers: Record<string, string>; query: unknown }[];

describe("proxy: universal endpoint", () => {
  it("fills each step's auth header from KV, adds the gateway token and keeps cf-aig-* headers", async () => {
    const harness = createHarness();
    await harness.rotate("anthropic", "sk-ant-primary-0001");
    await harness.rotate("openai", "sk-openai-secondary-0001");
    harness.acceptKeys("anthropic", "sk-ant-primary-0001");
    const app = await harness.createApp();
    const body = universal("anthropic", "openai");
    const response = await harness.call("POST", `/v1/${accountId}/chat?trace=1`, {
      token: app.token,
      body,
      headers: { "cf-aig-cache-ttl": "0", "cf-aig-metadata": '{"user":"u1"}' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("0");
    expect(response.headers.get("cf-aig-log-id")).toBe("log-1");
    const [sent] = harness.gatewayCalls;
    expect(sent?.url).toBe(`${gatewayUrl}/v1/${accountId}/chat?trace=1`);
    expect(sent?.headers).toMatchObject({
      "cf-aig-authorization": `Bearer ${gatewayToken}`,
      "cf-aig-cache-ttl": "0",
      // The Worker names the app itself (app-scope.ts).
      "cf-aig-metadata": JSON.stringify({ app: app.id, user: "u1" }),
    });
    expect(sent?.headers.authorization).toBeUndefined();
    const steps = stepsSent(sent!.body);
    expect(steps[0]?.headers).toEqual({
      "content-type": "application/json",
      "x-api-key": "sk-ant-primary-0001",
      "anthropic-version": "2023-06-01",
    });
    expect(steps[1]?.headers).toEqual({
      "content-type": "application/json",
      authorization: "Bearer sk-openai-secondary-0001",
    });
    expect(steps.map((step) => step.query)).toEqual(body.map((step) => step.query));
  });

  it("after a rotation the proxy sends the new key; after a rollback the previous one", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-old-00001");
    harness.acceptKeys("openai", "sk-openai-old-00001");
    const call = () =>
      harness.call("POST", `/v1/${accountId}/chat`, {
        token: app.token,
        body: universal("openai"),
      });
    expect((await call()).status).toBe(200);

    await harness.advance(1000);
    await harness.rotate("openai", "sk-openai-new-00002");
    harness.acceptKeys("openai", "sk-openai-new-00002");
    expect((await call()).status).toBe(200);
    expect(stepsSent(harness.gatewayCalls.at(-1)!.body)[0]?.headers.authorization).toBe(
      "Bearer sk-openai-new-00002",
    );

    await harness.advance(1000);
    expect((await harness.call("POST", "/keys/openai/rollback")).status).toBe(200);
    const afterRollback = await call();
    expect(afterRollback.status).toBe(401);
    expect(stepsSent(harness.gatewayCalls.at(-1)!.body)[0]?.headers.authorization).toBe(
      "Bearer sk-openai-old-00001",
    );
  });

  it("after a revoke the revoked key is never sent again", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-good-00001");
    const bad = await harness.rotate("openai", "sk-openai-leaked-0002");
    expect((await harness.call("DELETE", `/keys/openai/${bad.version}`)).status).toBe(200);
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("openai"),
    });
    expect(harness.gatewayCalls.at(-1)!.body).not.toContain("sk-openai-leaked-0002");
    expect(stepsSent(harness.gatewayCalls.at(-1)!.body)[0]?.headers.authorization).toBe(
      "Bearer sk-openai-good-00001",
    );
  });

  it("a step without a key goes without auth; a request with no usable key at all is a 503", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    const none = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("anthropic", "openai"),
    });
    expect(none.status).toBe(503);
    expect(none.json().error.code).toBe("no_usable_key");
    expect(harness.gatewayCalls).toHaveLength(0);

    await harness.rotate("openai", "sk-openai-only-00001");
    harness.acceptKeys("openai", "sk-openai-only-00001");
    const response = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("anthropic", "openai").map((step) => ({
        ...step,
        headers: { ...step.headers, "x-api-key": app.token },
      })),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    const steps = stepsSent(harness.gatewayCalls.at(-1)!.body);
    // The app's x-api-key (its own token) is gone; no provider key replaced it.
    expect(steps[0]?.headers).toEqual({
      "content-type": "application/json",
      "anthropic-version": "2023-06-01",
    });
  });

  it("a key past its expiresAt is not sent once the clock passes it", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-expiring-01", { expiresAt: "2026-03-01T13:00:00Z" });
    const call = () =>
      harness.call("POST", `/v1/${accountId}/chat/openai/chat/completions`, {
        token: app.token,
        body: { model: "gpt-4o-mini" },
      });
    expect((await call()).status).toBe(401); // the fake provider does not accept it, but it was sent
    expect(harness.gatewayCalls.at(-1)?.headers.authorization).toBe("Bearer sk-openai-expiring-01");
    await harness.advance(3_600_000);
    const expired = await call();
    expect(expired.status).toBe(503);
    expect(expired.json().error.code).toBe("no_usable_key");
    expect(harness.gatewayCalls).toHaveLength(1);
  });
});

describe("proxy: provider-native and compat endpoints", () => {
  it("provider-native: the provider's own auth header, body and query passed through", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("anthropic", "sk-ant-native-000001");
    harness.acceptKeys("anthropic", "sk-ant-native-000001");
    const body =
      '{"model":"claude-sonnet-4-5","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}';
    const response = await harness.call(
      "POST",
      `/v1/${accountId}/chat/anthropic/v1/messages?beta=true`,
      {
        token: null,
        body,
        headers: {
          "x-api-key": app.token,
          "content-type": "application/json",
          "anthropic-version": "2023-06-01",
        },
      },
    );
    expect(response.status).toBe(200);
    const sent = harness.gatewayCalls.at(-1)!;
    expect(sent.url).toBe(`${gatewayUrl}/v1/${accountId}/chat/anthropic/v1/messages?beta=true`);
    expect(sent.body).toBe(body);
    expect(sent.headers["x-api-key"]).toBe("sk-ant-native-000001");
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent.headers["cf-aig-authorization"]).toBe(`Bearer ${gatewayToken}`);
  });

  it("google-ai-studio gets x-goog-api-key", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("google-ai-studio", "AIza-google-key-00001");
    await harness.call(
      "POST",
      `/v1/${accountId}/chat/google-ai-studio/v1beta/models/gemini-2.5-flash:generateContent`,
      {
        token: app.token,
        body: { contents: [] },
      },
    );
    expect(harness.gatewayCalls.at(-1)?.headers).toMatchObject({
      "x-goog-api-key": "AIza-google-key-00001",
    });
    expect(harness.gatewayCalls.at(-1)?.headers.authorization).toBeUndefined();
  });

  it("compat: Authorization: Bearer <key> for the provider named by the model", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-compat-0001");
    harness.acceptKeys("openai", "sk-openai-compat-0001");
    const response = await harness.call("POST", `/v1/${accountId}/chat/compat/chat/completions`, {
      token: app.token,
      body: { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    expect(harness.gatewayCalls.at(-1)?.headers.authorization).toBe("Bearer sk-openai-compat-0001");
  });

  it("compat dynamic/ routes and BYOK providers get no key from the Worker", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-unused-0001");
    const dynamic = await harness.call("POST", `/v1/${accountId}/chat/compat/chat/completions`, {
      token: app.token,
      body: { model: "dynamic/default", messages: [] },
    });
    expect(dynamic.status).toBe(401);
    expect(harness.gatewayCalls.at(-1)?.headers.authorization).toBeUndefined();
    expect(harness.gatewayCalls.at(-1)?.headers["cf-aig-authorization"]).toBe(
      `Bearer ${gatewayToken}`,
    );
    const byok = await harness.call("POST", `/v1/${accountId}/batch/groq/chat/completions`, {
      token: app.token,
      body: { model: "llama" },
    });
    expect(byok.status).toBe(401);
    expect(harness.gatewayCalls.at(-1)?.headers.authorization).toBeUndefined();
  });

  it("streams the gateway's response body back unchanged", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-stream-0001");
    const chunks = [
      'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n',
      'data: {"choices":[{"delta":{"content":"lo"}}]}\n\n',
      "data: [DONE]\n\n",
    ];
    harness.setGateway(() => {
      const encoder = new TextEncoder();
      const stream = new ReadableStream({
        async pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(encoder.encode(next));
        },
      });
      return new Response(stream, {
        headers: { "content-type": "text/event-stream", "cf-aig-step": "0" },
      });
    });
    const response = await harness.call("POST", `/v1/${accountId}/chat/openai/chat/completions`, {
      token: app.token,
      body: { stream: true },
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.text).toBe(
      'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\ndata: {"choices":[{"delta":{"content":"lo"}}]}\n\ndata: [DONE]\n\n',
    );
  });

  it("sends no cf-aig-authorization when GATEWAY_TOKEN is not set", async () => {
    const harness = createHarness({ envOverrides: { GATEWAY_TOKEN: "" } });
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-notoken-001");
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("openai"),
    });
    expect(harness.gatewayCalls.at(-1)?.headers["cf-aig-authorization"]).toBeUndefined();
  });

  it("falls back to worker.gatewayUrl from the config when GATEWAY_URL is empty", async () => {
    const harness = createHarness({
      envOverrides: { GATEWAY_URL: "" },
      config: testConfig({ worker: { gatewayUrl: "http://127.0.0.1:8787/" } }),
    });
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-url-000001");
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("openai"),
    });
    expect(harness.gatewayCalls.at(-1)?.url).toBe(`http://127.0.0.1:8787/v1/${accountId}/chat`);
  });
});

describe("proxy: app tokens and rate limits", () => {
  it("accepts the app token in cf-aig-authorization, Authorization or x-api-key and never forwards it", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-auth-000001");
    const variants: Record<string, string>[] = [
      { "cf-aig-authorization": `Bearer ${app.token}` },
      { authorization: `Bearer ${app.token}` },
      { "x-api-key": app.token },
    ];
    for (const headers of variants) {
      const response = await harness.call("POST", `/v1/${accountId}/chat`, {
        token: null,
        headers,
        body: universal("openai"),
      });
      expect(response.status).toBe(401); // the fake provider rejects the key; the Worker let it through
      expect(response.json()).toEqual({ ok: false, provider: "openai" });
    }
    expect(harness.gatewayCalls).toHaveLength(3);
    expect(JSON.stringify(harness.gatewayCalls)).not.toContain(app.token);
  });

  it("refuses missing, wrong and revoked app tokens with the same 401", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-auth-000001");
    const forged = `${app.token.slice(0, -4)}AAAA`;
    await harness.call("DELETE", `/app-tokens/${app.id}`);
    // KV takes one write per second per key: the revocation reaches KV a second after the token.
    await harness.advance(1000);
    const tokens = [undefined, "not-a-token", forged, app.token];
    for (const token of tokens) {
      const response = await harness.call("POST", `/v1/${accountId}/chat`, {
        token: null,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        body: universal("openai"),
      });
      expect(response.status).toBe(401);
      expect(response.json().error.code).toBe("unauthorized");
    }
    expect(harness.gatewayCalls).toHaveLength(0);
  });

  it("answers 404 for an account or gateway the config does not declare", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    for (const path of [`/v1/${"f".repeat(32)}/chat`, `/v1/${accountId}/nope`]) {
      const response = await harness.call("POST", path, {
        token: app.token,
        body: universal("openai"),
      });
      expect(response.status).toBe(404);
      expect(response.json().error.code).toBe("unknown_gateway");
    }
  });

  it("limits each app to its requests per window, with 429 and Retry-After", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-rate-000001");
    const limited = await harness.createApp("limited", { limit: 2, windowSeconds: 10 });
    const other = await harness.createApp("other");
    const call = (token: string) =>
      harness.call("POST", `/v1/${accountId}/chat`, { token, body: universal("openai") });
    await harness.advance(-harness.now() % 10_000); // start of a window
    expect((await call(limited.token)).status).toBe(401);
    await harness.advance(3_000);
    expect((await call(limited.token)).status).toBe(401);
    const refused = await call(limited.token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("7");
    expect(refused.json().error.code).toBe("rate_limited");
    expect((await call(other.token)).status).toBe(401);
    expect(harness.gatewayCalls).toHaveLength(3);
    await harness.advance(7_000);
    expect((await call(limited.token)).status).toBe(401);
    expect(harness.gatewayCalls).toHaveLength(4);
  });
});

describe("proxy: bad input", () => {
  const cases: [
    string,
    number,
    string,
    { path?: string; method?: string; body?: unknown; headers?: Record<string, string> },
  ][] = [
    ["universal body that is an object", 400, "invalid_body", { body: { provider: "openai" } }],
    ["universal body with no steps", 400, "invalid_body", { body: [] }],
    [
      "step with an unknown provider",
      400,
      "invalid_body",
      { body: [{ provider: "nope", endpoint: "x", query: {} }] },
    ],
    [
      "step without an endpoint",
      400,
      "invalid_body",
      { body: [{ provider: "openai", query: {} }] },
    ],
    [
      "step headers that are not strings",
      400,
      "invalid_body",
      { body: [{ provider: "openai", endpoint: "x", headers: { a: 1 } }] },
    ],
    ["bad JSON", 400, "invalid_json", { body: "[{" }],
    [
      "wrong content type",
      415,
      "unsupported_media_type",
      { body: "[]", headers: { "content-type": "text/plain" } },
    ],
    ["GET on the universal endpoint", 405, "method_not_allowed", { method: "GET" }],
    [
      "compat model without a provider",
      400,
      "invalid_body",
      { path: `/v1/${accountId}/chat/compat/chat/completions`, body: { model: "gpt-4o" } },
    ],
    [
      "compat with an unknown provider",
      400,
      "unknown_provider",
      { path: `/v1/${accountId}/chat/compat/chat/completions`, body: { model: "nope/x" } },
    ],
    [
      "compat on another path",
      404,
      "not_found",
      { path: `/v1/${accountId}/chat/compat/embeddings`, body: {} },
    ],
    [
      "provider-native unknown provider",
      400,
      "unknown_provider",
      { path: `/v1/${accountId}/chat/nope/v1/chat`, body: {} },
    ],
    [
      "provider-native provider without a key",
      503,
      "no_usable_key",
      { path: `/v1/${accountId}/chat/mistral/v1/chat/completions`, body: {} },
    ],
  ];
  it.each(cases)("%s → %i %s", async (_name, status, code, request) => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-input-00001");
    const response = await harness.call(
      request.method ?? "POST",
      request.path ?? `/v1/${accountId}/chat`,
      {
        token: app.token,
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(request.headers === undefined ? {} : { headers: request.headers }),
      },
    );
    expect(response.status).toBe(status);
    expect(response.json().error.code).toBe(code);
    expect(harness.gatewayCalls).toHaveLength(0);
  });

  it("an unreachable gateway is a 502, not a 500", async () => {
    const harness = createHarness({
      gateway: () => {
        throw new TypeError("connect ECONNREFUSED");
      },
    });
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-down-000001");
    const response = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("openai"),
    });
    expect(response.status).toBe(502);
    expect(response.json().error.code).toBe("gateway_unreachable");
    expect(harness.events.at(-1)?.doubles).toEqual([-1, 0, 0, 0, -1, -1, -1, 3, 1]);
    expect(harness.events.at(-1)?.blobs?.[4]).toBe("gateway_unreachable");
  });
});

describe("proxy: Analytics Engine events", () => {
  it("writes one event per call with step, provider, model, status and latency", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    await harness.rotate("anthropic", "sk-ant-events-000001");
    await harness.rotate("openai", "sk-openai-events-0001");
    harness.acceptKeys("openai", "sk-openai-events-0001");
    const slowGateway = harness.setGateway;
    slowGateway(async (call, keys) => {
      await harness.advance(120);
      const { defaultGateway } = await import("./harness.ts");
      return defaultGateway(call, keys);
    });
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("anthropic", "openai"),
      headers: { "cf-aig-metadata": '{"route":"default"}', "cf-aig-event-id": "call-1" },
    });
    // Columns as analytics-schema.ts defines them (blob1 gateway, blob2 route, … double8 version, double9 attempt).
    expect(harness.events).toEqual([
      {
        indexes: ["chat"],
        blobs: [
          ...["chat", "default", "openai", "gpt-4o-mini", "", "MISS"],
          ...[app.id, "universal", "current", `${app.id}:call-1`],
          // The app is blob7 only, not repeated among the metadata blobs.
          "route=default",
        ],
        doubles: [1, 200, 120, 1, -1, -1, -1, 3, 1],
      },
    ]);
  });

  it("a failing dataset never fails the call", async () => {
    const harness = createHarness({
      envOverrides: {
        EVENTS: {
          writeDataPoint: () => {
            throw new Error("dataset unavailable");
          },
        },
      },
    });
    const app = await harness.createApp();
    await harness.rotate("openai", "sk-openai-events-0001");
    harness.acceptKeys("openai", "sk-openai-events-0001");
    const response = await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: universal("openai"),
    });
    expect(response.status).toBe(200);
    expect(harness.logs).toContain(
      "warn: stepwise worker: could not write an Analytics Engine event; the call went on",
    );
  });
});
