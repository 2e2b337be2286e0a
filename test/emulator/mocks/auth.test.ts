import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockProviders, startMockProviders } from "../../../src/emulator/mocks/index.ts";
import { chat, formatCases, readError } from "./helpers.ts";

/** The error type each provider uses for a bad key. */
const authTypes: Record<string, string> = {
  openai: "invalid_api_key",
  anthropic: "authentication_error",
  "workers-ai": "10000",
  "google-ai-studio": "UNAUTHENTICATED",
};

let mocks: MockProviders;

beforeAll(async () => {
  mocks = await startMockProviders({
    providers: [...formatCases.map((c) => c.provider), "groq"],
    keys: Object.fromEntries(formatCases.map((c) => [c.provider, ["good-key", "second-key"]])),
  });
});
afterAll(() => mocks.close());
beforeEach(() => mocks.clearAttempts());

describe.each(formatCases)("$provider auth", ({ provider, model }) => {
  it("accepts a listed key", async () => {
    const response = await chat(mocks, provider, { model, key: "good-key" });
    expect(response.status).toBe(200);
    expect(mocks.attempts[0]?.auth).toBe("valid");
  });

  it("answers a missing key with 401 in the provider's format", async () => {
    const response = await chat(mocks, provider, { model, key: null });
    expect(response.status).toBe(401);
    const error = await readError(provider, response);
    expect(error.type).toBe(authTypes[provider]);
    expect(mocks.attempts[0]).toMatchObject({ auth: "missing", status: 401, fault: null });
  });

  it("answers a key that is not listed with 401, without echoing it", async () => {
    const response = await chat(mocks, provider, { model, key: "stolen-key-123" });
    expect(response.status).toBe(401);
    const body = await response.text();
    expect(body).not.toContain("stolen-key-123");
    expect(JSON.stringify(mocks.attempts)).not.toContain("stolen-key-123");
    expect(mocks.attempts[0]?.auth).toBe("wrong");
  });

  it("answers a revoked key with 401 saying it was revoked", async () => {
    mocks.revokeKey(provider, "second-key");
    const response = await chat(mocks, provider, { model, key: "second-key" });
    expect(response.status).toBe(401);
    const error = await readError(provider, response);
    expect(error.message).toMatch(/revoked/);
    expect(mocks.attempts[0]?.auth).toBe("revoked");
  });

  it("setKeys replaces the accepted keys (a rotation)", async () => {
    mocks.setKeys(provider, ["rotated-key"]);
    expect((await chat(mocks, provider, { model, key: "good-key" })).status).toBe(401);
    expect((await chat(mocks, provider, { model, key: "rotated-key" })).status).toBe(200);
    expect(mocks.attempts.map((attempt) => attempt.auth)).toEqual(["wrong", "valid"]);
    mocks.setKeys(provider, ["good-key", "second-key"]);
  });
});

describe("auth details", () => {
  it("a provider without a key list accepts any non-empty key, but not an empty one", async () => {
    expect(
      (await chat(mocks, "groq", { model: "llama-3.1-8b-instant", key: "anything" })).status,
    ).toBe(200);
    expect((await chat(mocks, "groq", { model: "llama-3.1-8b-instant", key: "" })).status).toBe(
      401,
    );
  });

  it("a revoked key stays revoked for a provider without a key list", async () => {
    mocks.revokeKey("groq", "old");
    const response = await chat(mocks, "groq", { model: "m", key: "old" });
    expect(response.status).toBe(401);
    expect((await readError("groq", response)).message).toMatch(/revoked/);
  });

  it("anthropic requires the anthropic-version header", async () => {
    const response = await fetch(`${mocks.urls.anthropic}v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "good-key", "content-type": "application/json" },
      body: JSON.stringify({
        model: "claude-haiku-4-5",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(response.status).toBe(400);
    const error = await readError("anthropic", response);
    expect(error).toMatchObject({ type: "invalid_request_error" });
    expect(error.message).toContain("anthropic-version");
  });

  it("checks the key before the fault schedule: a wrong key is a 401 even while a provider is down", async () => {
    mocks.setFaults({ rules: [{ provider: "openai", kind: "unavailable" }] });
    try {
      expect((await chat(mocks, "openai", { model: "gpt-4o", key: "nope" })).status).toBe(401);
      expect((await chat(mocks, "openai", { model: "gpt-4o", key: "good-key" })).status).toBe(503);
    } finally {
      mocks.setFaults({ rules: [] });
    }
  });
});
