/// <reference types="@cloudflare/vitest-pool-workers/types" />
import { reset } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { KvNamespaceLike } from "../../src/worker/index.ts";
import { accountId, adminToken, createHarness, gatewayToken } from "./harness.ts";

afterEach(async () => {
  await reset();
  vi.restoreAllMocks();
});

/** Everything the Worker printed through `console`, captured by spies. */
function captureConsole(): string[] {
  const lines: string[] = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    });
  }
  return lines;
}

const secrets = {
  anthropic: "ant-LEAKCHECK-anthropic-0001",
  openai: "sk-LEAKCHECK-openai-0002",
  openaiNext: "sk-LEAKCHECK-openai-next-0003",
  google: "AIza-LEAKCHECK-google-0004",
};

describe("no key in any response, log line or event", () => {
  it("a whole session: rotations, rollback, revoke, every proxy path, bad input, cron", async () => {
    const consoleLines = captureConsole();
    const harness = createHarness();
    harness.acceptKeys("openai", secrets.openaiNext);
    await harness.rotate("anthropic", secrets.anthropic, { label: "leak-check" });
    await harness.rotate("google-ai-studio", secrets.google);
    await harness.rotate("openai", secrets.openai);
    await harness.advance(1000);
    const next = await harness.rotate("openai", secrets.openaiNext, {
      expiresAt: "2027-01-01T00:00:00Z",
    });
    const app = await harness.createApp("leak-check");
    const token = app.token;

    const steps = ["anthropic", "openai"].map((provider) => ({
      provider,
      endpoint: "chat/completions",
      headers: { authorization: `Bearer ${token}` },
      query: { model: "m", messages: [] },
    }));
    await harness.call("POST", `/v1/${accountId}/chat`, { token, body: steps });
    await harness.call("POST", `/v1/${accountId}/chat/anthropic/v1/messages`, {
      token,
      body: { model: "m" },
    });
    await harness.call("POST", `/v1/${accountId}/chat/compat/chat/completions`, {
      token,
      body: { model: "openai/gpt-4o-mini" },
    });
    await harness.call("POST", `/v1/${accountId}/chat/compat/chat/completions`, {
      token,
      body: { model: "dynamic/default" },
    });
    await harness.call("GET", "/keys");
    await harness.call("GET", "/keys/openai");
    await harness.call("POST", "/keys/openai/rollback");
    await harness.call("POST", "/keys/openai/rollback");
    await harness.call("DELETE", `/keys/openai/${next.version}`);
    await harness.call("GET", "/app-tokens");
    // Bad input that carries a key in the wrong place.
    await harness.call("PUT", "/keys/openai", { body: { key: `${secrets.openai} ` } });
    await harness.call("PUT", "/keys/openai", {
      body: { key: secrets.openai, [secrets.openai]: secrets.openai },
    });
    await harness.call("PUT", "/keys/openai", { body: { key: [secrets.openai] } });
    await harness.call("PUT", "/keys/openai", {
      body: { key: secrets.openai, label: `${secrets.openai}\n` },
    });
    await harness.call("PUT", "/keys/openai", {
      body: { key: secrets.openai, label: `ci ${secrets.openai}` },
    });
    await harness.call("PUT", "/keys/openai", {
      body: { key: secrets.openai, expiresAt: secrets.openai },
    });
    await harness.call("PUT", `/keys/${secrets.openai}`, { body: { key: secrets.openai } });
    await harness.call("PUT", "/keys/openai", {
      body: `{"key":"${secrets.openai}"`,
      headers: { "content-type": "application/json" },
    });
    await harness.call("PUT", "/keys/openai", {
      body: `key=${secrets.openai}`,
      headers: { "content-type": "text/plain" },
    });
    await harness.call("PUT", "/keys/openai", {
      token: secrets.openai,
      body: { key: secrets.openai },
    });
    await harness.call("POST", `/v1/${accountId}/chat`, { token: secrets.openai, body: steps });
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token,
      body: [{ provider: secrets.openai, endpoint: "x" }],
    });
    await harness.call("POST", `/v1/${accountId}/chat/compat/chat/completions`, {
      token,
      body: { model: secrets.openai },
    });
    await harness.call("POST", `/v1/${accountId}/chat/${secrets.openai}/v1/chat`, {
      token,
      body: {},
    });
    await harness.advance(100 * 86_400_000);
    await harness.worker.runScheduled(harness.env);
    await harness.call("GET", "/health", { token });

    expect(harness.transcript.length).toBeGreaterThan(25);
    expect(harness.events.length).toBeGreaterThanOrEqual(4);
    const responses = harness.transcript.join("\n");
    const logs = [...harness.logs, ...consoleLines].join("\n");
    const events = JSON.stringify(harness.events);
    expect(harness.logs.some((line) => line.includes("rotated openai"))).toBe(true);
    for (const secret of [...Object.values(secrets), adminToken, gatewayToken]) {
      for (const [name, text] of [
        ["responses", responses],
        ["logs", logs],
        ["events", events],
      ] as const) {
        expect(text.includes(secret), `${name} contain ${secret.slice(0, 12)}…`).toBe(false);
        expect(
          text.includes(secret.slice(-12)),
          `${name} contain the tail of ${secret.slice(0, 12)}…`,
        ).toBe(false);
      }
    }
    // The app token appears once: in the response that created it.
    expect(harness.transcript.filter((entry) => entry.includes(token))).toHaveLength(1);
    expect(logs.includes(token) || events.includes(token)).toBe(false);
  });

  it("an unexpected failure is a 500 whose body and log line say nothing about the cause", async () => {
    const consoleLines = captureConsole();
    const failure = () =>
      Promise.reject(new Error(`storage failed while holding ${secrets.openai}`));
    const failingLedger = {
      idFromName: (name: string) => name,
      get: () => new Proxy({}, { get: () => failure }),
    };
    const failingKv: KvNamespaceLike = new Proxy({} as KvNamespaceLike, { get: () => failure });
    const harness = createHarness({
      envOverrides: { KEY_LEDGER: failingLedger as never, KEYS: failingKv },
    });
    const responses = [
      await harness.call("PUT", "/keys/openai", { body: { key: secrets.openai } }),
      await harness.call("POST", `/v1/${accountId}/chat`, {
        token: `sw_0123456789ab_${"A".repeat(43)}`,
        body: [],
      }),
    ];
    for (const response of responses) {
      expect(response.status).toBe(500);
      expect(response.json()).toEqual({
        error: { code: "internal_error", message: "The Worker failed unexpectedly; try again." },
      });
    }
    expect(harness.logs).toEqual([
      "error: stepwise worker: unexpected Error (unexpected)",
      "error: stepwise worker: unexpected Error (unexpected)",
    ]);
    expect([...harness.transcript, ...consoleLines].join("\n")).not.toContain(secrets.openai);
  });
});
