import { describe, expect, it } from "vitest";
import { InvalidOptionsError, UnknownRouteError } from "../../src/client/errors.ts";
import { createGatewayClient } from "../../src/client/index.ts";
import { loadConfig } from "../../src/config/index.ts";
import { createTestServer } from "../helpers/test-server.ts";
import {
  accountId,
  fixtureJson,
  gatewayUrl,
  messages,
  rejectionOf,
  routes,
  secrets,
  servedHeaders,
  testClient,
} from "./helpers.ts";

const server = createTestServer({
  [gatewayUrl]: {
    response: {
      type: "json",
      body: fixtureJson("providers/anthropic/response.json"),
      headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
    },
  },
});

/** The `cf-aig-*` headers of the first call, without the ones every call has. */
function callSettingsHeaders(): Record<string, string> {
  const headers = server.calls[0]!.headers;
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) =>
        name.startsWith("cf-aig-") && name !== "cf-aig-authorization" && name !== "cf-aig-event-id",
    ),
  );
}

describe("per-call options become cf-aig-* headers", () => {
  it("maps cache, metadata, event id, timeout, retries and logging", async () => {
    const { client, recorder } = testClient();
    await client.chat({
      route: "default",
      messages,
      cacheTtl: 3600,
      skipCache: true,
      cacheKey: "capital-of-italy",
      metadata: { user: "u-42", plan: "free", beta: true, seats: 3 },
      eventId: "evt-7",
      requestTimeoutMs: 8000,
      retries: { maxAttempts: 3, delayMs: 500, backoff: "exponential" },
      collectLog: false,
    });
    expect(callSettingsHeaders()).toStrictEqual({
      "cf-aig-cache-ttl": "3600",
      "cf-aig-skip-cache": "true",
      "cf-aig-cache-key": "capital-of-italy",
      "cf-aig-metadata": '{"route":"default","user":"u-42","plan":"free","beta":true,"seats":3}',
      "cf-aig-request-timeout": "8000",
      "cf-aig-max-attempts": "3",
      "cf-aig-retry-delay": "500",
      "cf-aig-backoff": "exponential",
      "cf-aig-collect-log": "false",
    });
    expect(server.calls[0]!.headers["cf-aig-event-id"]).toBe("evt-7");
    expect(recorder.events[0]?.id).toBe("evt-7");
  });

  it("sends only the headers a call asks for, and tags the call with its route", async () => {
    const { client } = testClient();
    await client.chat({ route: "default", messages });
    expect(callSettingsHeaders()).toStrictEqual({ "cf-aig-metadata": '{"route":"default"}' });
  });

  it("leaves the route tag out when the caller's metadata has a route or all five entries", async () => {
    const { client } = testClient();
    await client.chat({ route: "default", messages, metadata: { route: "checkout" } });
    await client.chat({ route: "default", messages, metadata: { a: 1, b: 2, c: 3, d: 4, e: 5 } });
    expect(server.calls.map((call) => call.headers["cf-aig-metadata"])).toEqual([
      '{"route":"checkout"}',
      '{"a":1,"b":2,"c":3,"d":4,"e":5}',
    ]);
  });

  it("uses the client's default request timeout unless the call sets one", async () => {
    const { client } = testClient({ requestTimeoutMs: 12_000 });
    await client.chat({ route: "default", messages });
    expect(callSettingsHeaders()).toStrictEqual({
      "cf-aig-request-timeout": "12000",
      "cf-aig-metadata": '{"route":"default"}',
    });
  });

  it("sends no gateway token when none is configured, and extra headers when given", async () => {
    const { client } = testClient({ gatewayToken: undefined, headers: { "x-team": "search" } });
    await client.chat({ route: "default", messages });
    expect(server.calls[0]!.headers["cf-aig-authorization"]).toBeUndefined();
    expect(server.calls[0]!.headers["x-team"]).toBe("search");
  });

  it("rejects out-of-range settings before sending, naming each one", async () => {
    const { client, recorder } = testClient();
    const error = await rejectionOf(
      client.chat({
        route: "default",
        messages,
        cacheTtl: 30,
        metadata: { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 },
        retries: { maxAttempts: 9 },
      }),
    );
    expect(InvalidOptionsError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain(
      "cacheTtl (seconds; 0 turns the cache off) must be a whole number from 60 to 2592000, got 30",
    );
    expect(message).toContain("metadata has 6 entries; the gateway keeps only 5");
    expect(message).toContain("retries.maxAttempts must be a whole number from 1 to 5, got 9");
    expect(server.calls).toHaveLength(0);
    expect(recorder.events[0]).toMatchObject({ ok: false, errorCode: "invalid_options" });
  });

  it("rejects out-of-range overrides of the client's own options, with the messages", async () => {
    const { client } = testClient();
    const error = await rejectionOf(
      client.chat({
        route: "default",
        messages: [],
        maxAttempts: 0,
        deadlineMs: 1.5,
        mode: "fast" as "dynamic",
        onStreamBreak: "retry" as "fail",
      }),
    );
    expect(InvalidOptionsError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /messages must be a non-empty array.*maxAttempts must be a whole number of at least 1, got 0.*deadlineMs must be a whole number of at least 1, got 1\.5.*mode must be one of "universal", "dynamic"; got "fast".*onStreamBreak must be one of "restart", "continue", "fail"; got "retry"/,
    );
    expect(server.calls).toHaveLength(0);
  });

  it("rejects empty or malformed messages", async () => {
    const { client } = testClient();
    const error = await rejectionOf(client.chat({ route: "default", messages: [] }));
    expect(InvalidOptionsError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("messages must be a non-empty array");
  });

  it("names the known routes for an unknown one, and records the failed call", async () => {
    const { client, recorder } = testClient();
    const error = await rejectionOf(client.chat({ route: "defualt", messages }));
    expect(UnknownRouteError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      'Unknown route "defualt". Known routes: default, fast',
    );
    expect(recorder.events).toHaveLength(1);
    expect(recorder.events[0]).toMatchObject({ route: "defualt", errorCode: "unknown_route" });
  });
});

describe("createGatewayClient", () => {
  it("checks the mode, the stream-break policy and each inline route's deadline and policy", () => {
    expect(() =>
      createGatewayClient({
        accountId,
        gatewayId: "chat-prod",
        mode: "fast" as "dynamic",
        onStreamBreak: "retry" as "fail",
        routes: {
          slow: {
            steps: [{ provider: "openai", model: "gpt-4o-mini" }],
            deadlineMs: 0,
            onStreamBreak: "never" as "fail",
          },
        },
      }),
    ).toThrowError(
      /mode must be one of "universal", "dynamic"; got "fast".*onStreamBreak must be one of "restart", "continue", "fail"; got "retry".*route "slow" deadlineMs must be a whole number of at least 1, got 0.*route "slow" onStreamBreak must be one of "restart", "continue", "fail"; got "never"/s,
    );
  });

  it("reports every problem with its options at once", () => {
    expect(() =>
      createGatewayClient({
        accountId: "",
        gatewayId: "chat-prod",
        baseUrl: "gateway.test",
        maxAttempts: 0,
        routes: { empty: [], odd: [{ provider: "opnai", model: "gpt-4o-mini" }] },
      }),
    ).toThrowError(
      expect.objectContaining({
        code: "invalid_options",
        message: expect.stringMatching(
          /accountId is missing.*baseUrl must be an http\(s\) URL.*maxAttempts must be a whole number of at least 1, got 0.*route "empty" has no steps.*route "odd" step 0: unknown provider "opnai" \(known: openai, .*, custom-<slug>\)\.$/s,
        ),
      }),
    );
  });

  it("builds URLs under the base URL, without a trailing slash", () => {
    const client = createGatewayClient({
      accountId,
      gatewayId: "chat-prod",
      baseUrl: "http://127.0.0.1:8787/",
      routes,
    });
    expect(client.url()).toBe(`http://127.0.0.1:8787/v1/${accountId}/chat-prod`);
    expect(client.url("compat")).toBe(`http://127.0.0.1:8787/v1/${accountId}/chat-prod/compat`);
  });

  it("defaults to Cloudflare's gateway", () => {
    const client = createGatewayClient({ accountId, gatewayId: "chat-prod", routes });
    expect(client.url("openai")).toBe(
      `https://gateway.ai.cloudflare.com/v1/${accountId}/chat-prod/openai`,
    );
  });

  it("takes routes straight from a loaded config", async () => {
    const { config } = await loadConfig({ stack: "dev", cwd: process.cwd() });
    const gateway = config.gateways[0]!;
    const { client } = testClient({ gatewayId: gateway.id, routes: gateway.routes });
    await client.chat({ route: "default", messages });
    const chain = server.calls[0]!.body as { provider: string; endpoint: string }[];
    expect(chain.map((step) => step.provider)).toStrictEqual(
      gateway.routes.default!.steps.map((step) => step.provider),
    );
    expect(JSON.stringify(server.calls[0]!.body)).toContain(secrets.anthropic);
  });
});
