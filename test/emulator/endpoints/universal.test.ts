import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, postJson, readBody, testConfig, universalBody } from "../helpers.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe("universal endpoint", () => {
  it("answers from the first step with the gateway headers", async () => {
    const started = await emulatorWith();
    emulator = started.emulator;
    const config = testConfig();
    const response = await postJson(emulator.gatewayUrl("open"), universalBody(config, "open"), {
      "cf-aig-event-id": "evt-1",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("0");
    expect(response.headers.get("cf-aig-provider")).toBe("anthropic");
    expect(response.headers.get("cf-aig-model")).toBe("claude-sonnet-4-5");
    expect(response.headers.get("cf-aig-cache-status")).toBe("MISS");
    expect(response.headers.get("cf-aig-event-id")).toBe("evt-1");
    const logId = response.headers.get("cf-aig-log-id");
    expect(logId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(response.headers.get("cf-aig-request-id")).toBe(logId);
    const body = (await response.json()) as { content: { text: string }[] };
    expect(body.content[0]!.text).toContain("Mock answer from anthropic model claude-sonnet-4-5");
    const [log] = emulator.logs("open");
    expect(log).toMatchObject({
      id: logId,
      step: 0,
      success: true,
      provider: "anthropic",
      status_code: 200,
    });
    expect(log!.tokens_out).toBeGreaterThan(0);
    expect(log!.cost).toBeGreaterThan(0);
  });

  it("falls back when the primary fails: cf-aig-step 1 and the second provider's body", async () => {
    const started = await emulatorWith({
      faults: { rules: [{ provider: "anthropic", kind: "unavailable" }] },
    });
    emulator = started.emulator;
    const response = await postJson(
      emulator.gatewayUrl("open"),
      universalBody(testConfig(), "open"),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    expect(response.headers.get("cf-aig-model")).toBe("gpt-4o-mini");
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toContain("Mock answer from openai model gpt-4o-mini");
    const logs = emulator.logs("open");
    expect(logs.map((log) => [log.step, log.provider, log.success, log.status_code])).toEqual([
      [0, "anthropic", false, 503],
      [1, "openai", true, 200],
    ]);
    // One request id for both records; the served record's id is the log id.
    expect(new Set(logs.map((log) => log.request_id)).size).toBe(1);
    expect(logs[1]!.id).toBe(response.headers.get("cf-aig-log-id"));
    expect(logs[0]!.id).toBe(response.headers.get("cf-aig-request-id"));
  });

  it("falls back at once, without retries, when the primary refuses its key", async () => {
    const started = await emulatorWith({ mockKeys: { anthropic: ["the-right-key"] } });
    emulator = started.emulator;
    const steps = universalBody(testConfig(), "open");
    steps[0]!.config = { maxAttempts: 3, retryDelay: 100, backoff: "constant" };
    const response = await postJson(emulator.gatewayUrl("open"), steps);
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    await response.text();
    expect(
      emulator.mocks!.attempts.map((attempt) => [attempt.provider, attempt.status, attempt.auth]),
    ).toEqual([
      ["anthropic", 401, "wrong"],
      ["openai", 200, "valid"],
    ]);
  });

  it("ends the chain on a request error that every provider would refuse", async () => {
    const started = await emulatorWith({
      faults: { rules: [{ provider: "anthropic", kind: "context-length" }] },
    });
    emulator = started.emulator;
    const response = await postJson(
      emulator.gatewayUrl("open"),
      universalBody(testConfig(), "open"),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("cf-aig-step")).toBe("0");
    await response.text();
    expect(emulator.mocks!.attempts.map((attempt) => attempt.provider)).toEqual(["anthropic"]);
  });

  it("retries a step with the configured backoff before falling back", async () => {
    const started = await emulatorWith({
      faults: { rules: [{ provider: "anthropic", kind: "overloaded" }] },
    });
    emulator = started.emulator;
    const steps = universalBody(testConfig(), "open");
    steps[0]!.config = { maxAttempts: 3, retryDelay: 100, backoff: "exponential" };
    const response = await postJson(emulator.gatewayUrl("open"), steps);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    await response.text();
    const attempts = emulator.mocks!.attempts;
    expect(attempts.map((attempt) => [attempt.provider, attempt.status])).toEqual([
      ["anthropic", 529],
      ["anthropic", 529],
      ["anthropic", 529],
      ["openai", 200],
    ]);
    // Exponential: 100 ms, then 200 ms, read from the mock's own attempt times (fake clock).
    const times = attempts.map((attempt) => attempt.receivedAt);
    expect([times[1]! - times[0]!, times[2]! - times[1]!, times[3]! - times[2]!]).toEqual([
      100, 200, 0,
    ]);
    expect(started.clock.sleeps).toEqual([100, 200]);
    expect(emulator.logs("open")[0]).toMatchObject({ step: 0, attempts: 3, success: false });
  });

  it("takes retries from headers, then the gateway, when the step sets none", async () => {
    const config = testConfig([
      {
        id: "retrying",
        retries: { maxAttempts: 2, delayMs: 50, backoff: "linear" },
        routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
      },
    ]);
    const started = await emulatorWith({
      config,
      faults: { rules: [{ provider: "openai", kind: "unavailable" }] },
    });
    emulator = started.emulator;
    const url = emulator.gatewayUrl("retrying");
    const body = universalBody(config, "retrying");
    const fromGateway = await postJson(url, body);
    await fromGateway.text();
    expect(started.clock.sleeps).toEqual([50]);
    started.clock.sleeps.length = 0;
    const fromHeaders = await postJson(url, body, {
      "cf-aig-max-attempts": "4",
      "cf-aig-retry-delay": "10",
      "cf-aig-backoff": "linear",
    });
    await fromHeaders.text();
    expect(started.clock.sleeps).toEqual([10, 20, 30]);
  });

  it("returns the last step's error with its index when every step fails", async () => {
    const started = await emulatorWith({
      faults: {
        rules: [
          { provider: "anthropic", kind: "overloaded" },
          { provider: "openai", kind: "rate-limit-no-retry-after" },
        ],
      },
    });
    emulator = started.emulator;
    const response = await postJson(
      emulator.gatewayUrl("open"),
      universalBody(testConfig(), "open"),
    );
    expect(response.status).toBe(429);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    expect(response.headers.get("cf-aig-provider")).toBe("openai");
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain("Rate limit reached");
  });

  it("does not fall back on a 4xx answer such as context length", async () => {
    const started = await emulatorWith({
      faults: { rules: [{ provider: "anthropic", kind: "context-length" }] },
    });
    emulator = started.emulator;
    const response = await postJson(
      emulator.gatewayUrl("open"),
      universalBody(testConfig(), "open"),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("cf-aig-step")).toBe("0");
    await response.text();
    expect(emulator.mocks!.attempts.map((attempt) => attempt.provider)).toEqual(["anthropic"]);
  });

  it("falls back on any non-2xx when started with failOn: any-error", async () => {
    const started = await emulatorWith({
      failOn: "any-error",
      faults: { rules: [{ provider: "anthropic", kind: "content-filter" }] },
    });
    emulator = started.emulator;
    const response = await postJson(
      emulator.gatewayUrl("open"),
      universalBody(testConfig(), "open"),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    await response.text();
  });

  it("falls back on a connection reset and on a timeout to first byte", async () => {
    const started = await emulatorWith({
      faults: {
        rules: [
          { provider: "anthropic", kind: "connection-reset", count: 1 },
          { provider: "anthropic", kind: "slow-first-byte", delayMs: 2000 },
        ],
      },
    });
    emulator = started.emulator;
    const steps = universalBody(testConfig(), "open");
    const reset = await postJson(emulator.gatewayUrl("open"), steps);
    expect(reset.headers.get("cf-aig-step")).toBe("1");
    await reset.text();
    steps[0]!.config = { requestTimeout: 60 };
    const slow = await postJson(emulator.gatewayUrl("open"), steps);
    expect(slow.headers.get("cf-aig-step")).toBe("1");
    await slow.text();
    const failures = emulator.logs("open").filter((log) => !log.success);
    expect(failures.map((log) => [log.error, log.status_code])).toEqual([
      ["network_error", 502],
      ["timeout", 504],
    ]);
  });

  it("reports a network failure of the last step as a 502 gateway error", async () => {
    const started = await emulatorWith({
      faults: { rules: [{ kind: "connection-reset" }] },
    });
    emulator = started.emulator;
    const response = await postJson(
      emulator.gatewayUrl("open"),
      universalBody(testConfig(), "open"),
    );
    expect(response.status).toBe(502);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    expect(await response.json()).toMatchObject({ success: false, error: [{ code: 2010 }] });
  });

  it("streams the serving step's answer through unchanged", async () => {
    const started = await emulatorWith();
    emulator = started.emulator;
    const response = await postJson(
      emulator.gatewayUrl("open"),
      universalBody(testConfig(), "open", "default", { stream: true }),
    );
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(response.headers.get("cf-aig-step")).toBe("0");
    const body = await readBody(response);
    expect(body.ok).toBe(true);
    expect(body.text).toContain("event: message_stop");
    const [log] = emulator.logs("open");
    expect(log).toMatchObject({ success: true, step: 0 });
    expect(log!.tokens_in).toBeGreaterThan(0);
    expect(log!.tokens_out).toBeGreaterThan(0);
  });
});
