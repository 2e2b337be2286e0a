/// <reference types="@cloudflare/vitest-pool-workers/types" />
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { adminToken, createHarness } from "./harness.ts";

afterEach(async () => {
  await reset();
});

describe("admin API: keys", () => {
  it("PUT /keys/{provider} rotates and returns metadata with a fingerprint, never the key", async () => {
    const harness = createHarness();
    const response = await harness.call("PUT", "/keys/openai", {
      body: {
        key: "sk-openai-rotated-001",
        label: "ci:deploy-42",
        expiresAt: "2026-12-31T00:00:00Z",
      },
    });
    expect(response.status).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({
      provider: "openai",
      state: "current",
      label: "ci:deploy-42",
      rotatedAt: "2026-03-01T12:00:00.000Z",
      expiresAt: "2026-12-31T00:00:00.000Z",
      ageDays: 0,
      flags: [],
    });
    expect(body.version).toMatch(/^\d{13}-[a-z0-9]+$/);
    expect(body.fingerprint).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(response.text).not.toContain("sk-openai-rotated-001");
  });

  it("GET /keys and GET /keys/{provider} show metadata and history", async () => {
    const harness = createHarness();
    const first = await harness.rotate("openai", "sk-openai-first-0001");
    await harness.advance(1000);
    const second = await harness.rotate("openai", "sk-openai-second-002", { label: "manual" });
    const one = await harness.call("GET", "/keys/openai");
    expect(one.status).toBe(200);
    expect(one.json()).toMatchObject({
      provider: "openai",
      managed: true,
      current: { version: second.version, label: "manual" },
      previous: { version: first.version, label: "admin-api" },
      graceEndsAt: "2026-03-01T12:01:01.000Z",
      versions: [
        { version: second.version },
        { version: first.version, state: "previous", historyEndsAt: "2026-03-01T13:00:01.000Z" },
      ],
      flags: [],
    });
    const all = await harness.call("GET", "/keys");
    const providers = all.json().providers as { provider: string; flags: string[] }[];
    expect(providers.map((entry) => entry.provider)).toEqual([
      "anthropic",
      "google-ai-studio",
      "openai",
    ]);
    expect(providers.find((entry) => entry.provider === "anthropic")?.flags).toEqual(["no-key"]);
    expect(all.text + one.text).not.toMatch(/sk-openai/);
  });

  it("POST /keys/{provider}/rollback goes back to the previous or a named version", async () => {
    const harness = createHarness();
    const first = await harness.rotate("openai", "sk-openai-first-0001");
    await harness.advance(1000);
    const second = await harness.rotate("openai", "sk-openai-second-002");
    await harness.advance(1000);
    await harness.rotate("openai", "sk-openai-third-0003");
    const back = await harness.call("POST", "/keys/openai/rollback");
    expect(back.status).toBe(200);
    expect(back.json().current.version).toBe(second.version);
    const named = await harness.call("POST", "/keys/openai/rollback", {
      body: { version: first.version },
    });
    expect(named.json().current.version).toBe(first.version);
    const missing = await harness.call("POST", "/keys/openai/rollback", {
      body: { version: "1772366400000-zzzz" },
    });
    expect(missing.status).toBe(404);
    expect(missing.json().error.code).toBe("unknown_version");
    const none = await harness.call("POST", "/keys/anthropic/rollback");
    expect(none.status).toBe(409);
    expect(none.json().error.code).toBe("no_current_key");
  });

  it("DELETE /keys/{provider}/{version} revokes one version", async () => {
    const harness = createHarness();
    const first = await harness.rotate("openai", "sk-openai-first-0001");
    const second = await harness.rotate("openai", "sk-openai-second-002");
    const revoked = await harness.call("DELETE", `/keys/openai/${first.version}`);
    expect(revoked.status).toBe(200);
    expect(revoked.json().versions).toContainEqual(
      expect.objectContaining({ version: first.version, state: "revoked" }),
    );
    expect(revoked.json().current.version).toBe(second.version);
    const again = await harness.call("DELETE", `/keys/openai/${first.version}`);
    expect(again.status).toBe(404);
    const last = await harness.call("DELETE", `/keys/openai/${second.version}`);
    expect(last.status).toBe(409);
    expect(last.json().error.code).toBe("no_fallback_key");
    const forced = await harness.call("DELETE", `/keys/openai/${second.version}?force=true`);
    expect(forced.status).toBe(200);
    expect(forced.json().flags).toEqual(["no-key"]);
  });
});

describe("admin API: app tokens", () => {
  it("creates (token shown once), lists without tokens, and revokes", async () => {
    const harness = createHarness();
    const created = await harness.createApp("checkout", { limit: 5, windowSeconds: 10 });
    expect(created.token).toMatch(/^sw_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    const listed = await harness.call("GET", "/app-tokens");
    expect(listed.json()).toEqual({
      apps: [
        {
          id: created.id,
          name: "checkout",
          createdAt: "2026-03-01T12:00:00.000Z",
          rateLimit: { limit: 5, windowSeconds: 10 },
          allow: {},
        },
      ],
    });
    expect(listed.text).not.toContain(created.token);
    const revoked = await harness.call("DELETE", `/app-tokens/${created.id}`);
    expect(revoked.status).toBe(200);
    expect((await harness.call("GET", "/app-tokens")).json()).toEqual({ apps: [] });
    expect((await harness.call("DELETE", `/app-tokens/${created.id}`)).status).toBe(404);
  });
});

describe("admin API: authentication", () => {
  const cases: [string, Record<string, string>][] = [
    ["no header", {}],
    ["wrong token", { authorization: "Bearer wrong-token" }],
    ["token with a different length", { authorization: `Bearer ${adminToken}x` }],
    ["not a bearer scheme", { authorization: `Basic ${adminToken}` }],
    ["empty bearer", { authorization: "Bearer " }],
  ];
  it.each(cases)("answers 401 with the same body for %s", async (_name, headers) => {
    const harness = createHarness();
    const response = await harness.call("PUT", "/keys/openai", {
      token: null,
      headers,
      body: { key: "sk-openai-rotated-001" },
    });
    expect(response.status).toBe(401);
    expect(response.json()).toEqual({
      error: {
        code: "unauthorized",
        message: "Missing or invalid token. Send Authorization: Bearer <token>.",
      },
    });
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="stepwise"');
    expect((await harness.call("GET", "/keys/openai")).json().flags).toEqual(["no-key"]);
  });

  it("refuses every admin call when ROTATE_TOKEN is not set", async () => {
    const harness = createHarness({ envOverrides: { ROTATE_TOKEN: "" } });
    const response = await harness.call("GET", "/keys", { token: "" });
    expect(response.status).toBe(401);
  });

  it("does not accept an app token on the admin API", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    expect((await harness.call("GET", "/keys", { token: app.token })).status).toBe(401);
  });
});

describe("admin API: bad input", () => {
  const longKey = `sk-${"a".repeat(4100)}`;
  const cases: [
    string,
    number,
    string,
    { path?: string; method?: string; body?: unknown; headers?: Record<string, string> },
  ][] = [
    [
      "unknown provider",
      400,
      "unknown_provider",
      { path: "/keys/not-a-provider", body: { key: "sk-valid-key-0001" } },
    ],
    [
      "provider not in keys.providers",
      400,
      "provider_not_managed",
      { path: "/keys/groq", body: { key: "sk-valid-key-0001" } },
    ],
    ["empty key", 400, "invalid_body", { body: { key: "" } }],
    ["short key", 400, "invalid_body", { body: { key: "sk-1" } }],
    ["oversized key", 400, "invalid_body", { body: { key: longKey } }],
    ["key with a trailing newline", 400, "invalid_body", { body: { key: "sk-valid-key-0001\n" } }],
    ["key with a space", 400, "invalid_body", { body: { key: "sk-valid key-0001" } }],
    ["key with non-ASCII", 400, "invalid_body", { body: { key: "sk-välid-key-0001" } }],
    ["key that is not a string", 400, "invalid_body", { body: { key: 12345678 } }],
    ["missing key", 400, "invalid_body", { body: { label: "x" } }],
    [
      "unknown field",
      400,
      "invalid_body",
      { body: { key: "sk-valid-key-0001", keys: "sk-other" } },
    ],
    ["body that is an array", 400, "invalid_body", { body: [{ key: "sk-valid-key-0001" }] }],
    [
      "bad expiresAt",
      400,
      "invalid_body",
      { body: { key: "sk-valid-key-0001", expiresAt: "tomorrow" } },
    ],
    [
      "expiresAt in the past",
      400,
      "invalid_body",
      { body: { key: "sk-valid-key-0001", expiresAt: "2020-01-01T00:00:00Z" } },
    ],
    [
      "bad label",
      400,
      "invalid_body",
      { body: { key: "sk-valid-key-0001", label: "line\nbreak" } },
    ],
    ["bad JSON", 400, "invalid_json", { body: '{"key": "sk-valid-key-0001"' }],
    ["empty body", 400, "invalid_json", { body: "" }],
    [
      "wrong content type",
      415,
      "unsupported_media_type",
      { body: '{"key":"sk-valid-key-0001"}', headers: { "content-type": "text/plain" } },
    ],
    [
      "form content type",
      415,
      "unsupported_media_type",
      {
        body: "key=sk-valid-key-0001",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      },
    ],
    [
      "body too large",
      413,
      "body_too_large",
      { body: { key: "sk-valid-key-0001", label: "x".repeat(20_000) } },
    ],
    [
      "wrong method",
      405,
      "method_not_allowed",
      { method: "PATCH", body: { key: "sk-valid-key-0001" } },
    ],
    ["unknown path", 404, "not_found", { path: "/keys/openai/rollback/extra", method: "POST" }],
    ["unknown pool key", 404, "unknown_key", { path: "/keys/openai/not-a-key", method: "DELETE" }],
    [
      "bad pool key name",
      400,
      "invalid_key_name",
      { path: "/keys/openai/Not_A_Name", method: "PUT" },
    ],
    [
      "bad version id of a pool key",
      404,
      "not_found",
      { path: "/keys/openai/secondary/not-a-version", method: "DELETE" },
    ],
    ["bad percent-encoding", 400, "invalid_path", { path: "/keys/%E0%A4%A", method: "GET" }],
    [
      "rollback with a bad version",
      400,
      "invalid_body",
      { path: "/keys/openai/rollback", method: "POST", body: { version: "../etc" } },
    ],
    ["app without a name", 400, "invalid_body", { path: "/app-tokens", method: "POST", body: {} }],
    [
      "app with a bad rate limit",
      400,
      "invalid_body",
      {
        path: "/app-tokens",
        method: "POST",
        body: { name: "a", rateLimit: { limit: 0, windowSeconds: 1 } },
      },
    ],
    ["unknown app id", 404, "unknown_app", { path: "/app-tokens/nope", method: "DELETE" }],
  ];
  it.each(cases)("%s → %i %s", async (_name, status, code, request) => {
    const harness = createHarness();
    const response = await harness.call(request.method ?? "PUT", request.path ?? "/keys/openai", {
      body: request.body,
      ...(request.headers === undefined ? {} : { headers: request.headers }),
    });
    expect(response.status).toBe(status);
    const body = response.json();
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(10);
    expect(response.text).not.toContain("sk-valid");
    expect(response.text).not.toContain("sk-other");
    expect((await harness.call("GET", "/keys/openai")).json().flags).toEqual(["no-key"]);
  });

  it("a chunked body over the limit is refused while reading", async () => {
    const harness = createHarness();
    const chunk = new TextEncoder().encode(
      `{"key":"sk-valid-key-0001","label":"${"x".repeat(20_000)}"}`,
    );
    const body = new ReadableStream({
      start: (controller) => {
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const execution = { waitUntil: () => undefined };
    const response = await harness.worker.fetch(
      new Request("https://worker.test/keys/openai", {
        method: "PUT",
        body,
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      }),
      harness.env,
      execution,
    );
    expect(response.status).toBe(413);
  });

  it("an invalid STEPWISE_CONFIG is a 503 that names the problem", async () => {
    const harness = createHarness({ envOverrides: { STEPWISE_CONFIG: '{"accountId":"nope"}' } });
    const response = await harness.call("GET", "/keys");
    expect(response.status).toBe(503);
    expect(response.json().error).toMatchObject({ code: "config_invalid" });
    expect(response.json().error.message).toContain("accountId");
  });
});
