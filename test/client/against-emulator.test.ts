/**
 * The client against the real emulator over loopback HTTP, with mock providers whose faults the
 * tests switch on and off: the breaker opens during an outage, stops calls from waiting for the
 * dead provider, probes after its cooldown and closes after recovery; a stream cut short is
 * rescued by the next step.
 */

import { setTimeout as delay } from "node:timers/promises";
import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type BreakerOptions, createCircuitBreaker } from "../../src/client/breaker.ts";
import { createGatewayFetch } from "../../src/client/fetch.ts";
import {
  createGatewayClient,
  type GatewayClientOptions,
  memoryRecorder,
} from "../../src/client/index.ts";
import { parseConfig } from "../../src/config/index.ts";
import { useEmulatorPerFile } from "../helpers/emulator-per-file.ts";

const accountId = "0123456789abcdef0123456789abcdef";
/** Step 0's time to first byte: how long a call waits for a provider that does not answer. */
const stepTimeoutMs = 250;
const cooldownMs = 60_000;

const config = parseConfig({
  accountId,
  gateways: [
    {
      id: "chat-test",
      authentication: true,
      // dynamic/default calls providers with keys stored in the gateway (BYOK).
      byok: { providers: ["anthropic", "openai", "workers-ai"] },
      routes: {
        default: [
          { provider: "anthropic", model: "claude-sonnet-4-5", timeoutMs: stepTimeoutMs },
          { provider: "openai", model: "gpt-4o-mini", timeoutMs: 5_000 },
          { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct", timeoutMs: 5_000 },
        ],
      },
    },
  ],
  keys: { providers: ["anthropic", "openai", "workers-ai"] },
  models: { "openai/gpt-4o-mini": { input: 0.15, output: 0.6 } },
});
const routes = config.gateways[0]!.routes;
const messages = [{ role: "user", content: "What is the capital of Italy?" }] as const;

const running = useEmulatorPerFile(config, {
  gatewayToken: "emulator-token",
  clearAttempts: true,
});
beforeEach(() => {
  // Step timeouts run on fake timers: a timeout fires only when a test moves time, so a healthy
  // step is never timed out by a busy machine (step 0 allows only 250 ms to its first byte).
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Real time plus a jump the test controls, so latency is real and cooldowns are skipped. */
function jumpingClock() {
  let jump = 0;
  return { now: () => Date.now() + jump, skip: (ms: number) => (jump += ms) };
}

function clientFor(overrides: Partial<GatewayClientOptions> = {}, breakerOptions?: BreakerOptions) {
  const clock = jumpingClock();
  const recorder = memoryRecorder();
  const breaker =
    breakerOptions === undefined
      ? undefined
      : createCircuitBreaker({ ...breakerOptions, now: clock.now });
  const options: GatewayClientOptions = {
    accountId,
    gatewayId: "chat-test",
    baseUrl: running.emulator.url,
    gatewayToken: running.emulator.gatewayToken,
    routes,
    prices: config.models,
    keyLookup: (provider) => `test-key-${provider}`,
    now: clock.now,
    recorder,
    breaker,
    ...overrides,
  };
  return {
    client: createGatewayClient(options),
    fetch: createGatewayFetch(options),
    breaker,
    clock,
    recorder,
  };
}

/** The state of the primary's circuit. */
const primary = ["anthropic", "claude-sonnet-4-5"] as const;

function anthropicAttempts(): number {
  return running.emulator.mocks!.attempts.filter((attempt) => attempt.provider === "anthropic")
    .length;
}

/** Resolves once `condition` holds, polling on real time (the test's timers may be fake). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await delay(5);
}

/**
 * Runs a call whose first attempt goes to Anthropic, which never answers: once the mock has the
 * attempt, the step's timeout passes (fake timers, and the same jump on the client's clock), and
 * the call goes on. No real time is waited, so a busy machine cannot time out a healthy step.
 */
async function pastAnthropicTimeout<T>(
  start: () => Promise<T>,
  clock: { skip(ms: number): void },
): Promise<T> {
  const before = anthropicAttempts();
  const call = start();
  await until(() => anthropicAttempts() > before);
  clock.skip(stepTimeoutMs);
  vi.advanceTimersByTime(stepTimeoutMs);
  return call;
}

describe("the breaker against the emulator", () => {
  it("opens during an outage, stops waiting for the dead provider, probes, and closes after recovery", async () => {
    const { client, clock, recorder, breaker } = clientFor({}, { failureThreshold: 2, cooldownMs });

    const healthy = await client.chat({ route: "default", messages });
    expect(healthy.served).toMatchObject({ index: 0, provider: "anthropic" });

    // Outage: Anthropic accepts requests and never answers; the gateway gives up after the
    // step's timeout and falls back to OpenAI.
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "no-response" }] });
    const duringOutage = [];
    for (let call = 0; call < 2; call++) {
      duringOutage.push(
        await pastAnthropicTimeout(() => client.chat({ route: "default", messages }), clock),
      );
    }
    expect(duringOutage.map((answer) => answer.served.index)).toStrictEqual([1, 1]);
    for (const answer of duringOutage) {
      expect(answer.served.latencyMs).toBeGreaterThanOrEqual(stepTimeoutMs);
    }
    expect(breaker!.health()["anthropic/claude-sonnet-4-5"]).toMatchObject({
      state: "open",
      consecutiveFailures: 2,
    });

    // Open: Anthropic goes last, so calls are served by OpenAI without waiting for it. Time
    // does not move: a call that tried Anthropic first would never end, so it fails instead.
    const attemptsBefore = anthropicAttempts();
    let ended = false;
    const openCall = client.chat({ route: "default", messages }).finally(() => {
      ended = true;
    });
    await until(() => ended || anthropicAttempts() > attemptsBefore);
    expect(anthropicAttempts(), "a call tried Anthropic while its circuit was open").toBe(
      attemptsBefore,
    );
    const whileOpen = await openCall;
    expect(whileOpen.served).toMatchObject({ index: 1, provider: "openai" });

    // Cooldown over, still down: the probe call tries Anthropic first, fails, and reopens for
    // twice the cooldown.
    clock.skip(cooldownMs);
    expect(breaker!.state(...primary)).toBe("half-open");
    const failedProbe = await pastAnthropicTimeout(
      () => client.chat({ route: "default", messages }),
      clock,
    );
    expect(failedProbe.served.index).toBe(1);
    expect(anthropicAttempts()).toBe(attemptsBefore + 1);
    expect(breaker!.state(...primary)).toBe("open");
    clock.skip(cooldownMs);
    expect(breaker!.state(...primary)).toBe("open");

    // Recovery: the next probe succeeds and closes the circuit.
    running.emulator.mocks!.setFaults({ rules: [] });
    clock.skip(cooldownMs);
    const probe = await client.chat({ route: "default", messages });
    expect(probe.served).toMatchObject({ index: 0, provider: "anthropic" });
    expect(breaker!.state(...primary)).toBe("closed");

    expect(recorder.transitions.map(({ to, reason }) => `${to} (${reason})`)).toStrictEqual([
      "open (consecutive_failures)",
      "half-open (cooldown_elapsed)",
      "open (probe_failed)",
      "half-open (cooldown_elapsed)",
      "closed (probe_succeeded)",
    ]);
    expect(recorder.events.map((event) => event.step)).toStrictEqual([0, 1, 1, 1, 1, 0]);
    expect(recorder.events.every((event) => event.ok)).toBe(true);
  });

  it("drops an open provider when asked, so it is not even the last resort", async () => {
    const { client } = clientFor({}, { failureThreshold: 1, cooldownMs, whenOpen: "drop" });
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    await client.chat({ route: "default", messages });
    running.emulator.mocks!.setFaults({
      rules: [
        { provider: "anthropic", kind: "unavailable" },
        { provider: "openai", kind: "unavailable" },
        { provider: "workers-ai", kind: "unavailable" },
      ],
    });
    running.emulator.mocks!.clearAttempts();
    await client.chat({ route: "default", messages, maxAttempts: 1 }).catch(() => undefined);
    expect(anthropicAttempts()).toBe(0);
  });
});

describe("streams against the emulator", () => {
  it("streams an answer and names the step that served it", async () => {
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    const { client, recorder } = clientFor();
    const stream = client.stream({ route: "default", messages });
    let text = "";
    for await (const delta of stream) if (delta.type === "text") text += delta.text;
    const result = await stream.result;
    expect(result.text).toBe(text);
    expect(text.length).toBeGreaterThan(0);
    expect(result.served).toMatchObject({ index: 1, provider: "openai" });
    expect(result.usage.tokensOut).toBeGreaterThan(0);
    expect(recorder.events[0]).toMatchObject({ ok: true, streamed: true, step: 1 });
  });

  it("rescues a stream the provider cuts short with the next step, never a partial success", async () => {
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "stream-cut" }] });
    const { client, recorder } = clientFor();
    const stream = client.stream({ route: "default", messages });
    const restarts = [];
    for await (const delta of stream) if (delta.type === "restart") restarts.push(delta);
    const result = await stream.result;
    expect(result.served).toMatchObject({ index: 1, provider: "openai" });
    expect(result.text).toMatch(/^Mock answer from openai .*\[end\]$/);
    expect(restarts).toMatchObject([{ step: 0, reason: "incomplete_stream" }]);
    expect(recorder.events[0]).toMatchObject({ ok: true, step: 1 });
  });

  it("accepts a stream that ends after its finish reason without its end marker", async () => {
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "missing-done" }] });
    const { client } = clientFor();
    const result = await client.stream({ route: "default", messages }).collect();
    expect(result.served.index).toBe(0);
    expect(result.text).toMatch(/\[end\]$/);
  });
});

describe("createGatewayFetch against the emulator", () => {
  it("records the dynamic route's serving step for the OpenAI SDK", async () => {
    running.emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
    const { client, fetch, recorder } = clientFor();
    const openai = new OpenAI({
      apiKey: "test-key-openai",
      baseURL: client.url("compat"),
      fetch,
      maxRetries: 0,
    });
    const completion = await openai.chat.completions.create({
      model: "dynamic/default",
      messages: [...messages],
    });
    expect(completion.choices[0]?.message.content).toBeTruthy();
    await expect.poll(() => recorder.events.length).toBe(1);
    expect(recorder.events[0]).toMatchObject({
      mode: "fetch",
      route: "default",
      step: 1,
      provider: "openai",
      ok: true,
    });
  });
});
