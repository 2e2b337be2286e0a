/**
 * Issue 13's recovery scenario on the emulator: the primary is down for 12 s and a call comes
 * every 1.5 s. Every call is served; once the primary's circuit opens, at most one request per
 * cooldown reaches the primary (its probe); and the primary serves again within one base cooldown
 * of its recovery, with the breaker's defaults (5 failures open the circuit, a 2 s cooldown that
 * doubles after a failed probe). One clock drives the client, the breaker, the emulator and the
 * mock's outage window, and the test moves it between calls: deterministic, no waiting.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCircuitBreaker } from "../../src/client/breaker.ts";
import { createGatewayClient, memoryRecorder } from "../../src/client/index.ts";
import { parseConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const start = Date.parse("2030-01-01T00:00:00Z");
const outageMs = 12_000;
const everyMs = 1_500;
const baseCooldownMs = 2_000;

let clock = start;
const now = () => clock;

const config = parseConfig({
  accountId,
  gateways: [
    {
      id: "outage",
      authentication: false,
      routes: {
        default: [
          { provider: "anthropic", model: "claude-sonnet-4-5" },
          { provider: "openai", model: "gpt-4o-mini" },
        ],
      },
    },
  ],
  keys: { providers: ["anthropic", "openai"] },
});

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ config, now });
});
afterAll(() => emulator.close());

it("serves every call through a 12 s primary outage and returns to the primary within one cooldown", async () => {
  emulator.mocks!.setFaults({
    rules: [{ provider: "anthropic", kind: "down", fromMs: start, untilMs: start + outageMs }],
  });
  const recorder = memoryRecorder();
  const breaker = createCircuitBreaker({ now });
  const client = createGatewayClient({
    accountId,
    gatewayId: "outage",
    baseUrl: emulator.url,
    routes: config.gateways[0]!.routes,
    keyLookup: (provider) => `key-${provider}`,
    now,
    recorder,
    breaker,
  });

  const served: { at: number; step: number | null }[] = [];
  for (let at = 0; at <= 21_000; at += everyMs) {
    clock = start + at;
    const answer = await client.chat({
      route: "default",
      messages: [{ role: "user", content: "Hi" }],
    });
    served.push({ at, step: answer.served.index });
  }

  // Every call served: by the fallback during the outage, by the primary before and after.
  expect(recorder.events.every((event) => event.ok)).toBe(true);
  const primaryAgain = served.find(({ at, step }) => at >= outageMs && step === 0);
  expect(primaryAgain).toBeDefined();
  expect(served.filter(({ at }) => at >= primaryAgain!.at).every(({ step }) => step === 0)).toBe(
    true,
  );
  // Within one base cooldown of the recovery.
  expect(primaryAgain!.at - outageMs).toBeLessThanOrEqual(baseCooldownMs);

  // The circuit: open after five failures, a failed probe doubles the cooldown, the next probe
  // closes it.
  const transitions = recorder.transitions.map(({ time, to, reason, cooldownMs }) => ({
    at: Date.parse(time) - start,
    to,
    reason,
    cooldownMs,
  }));
  expect(transitions).toEqual([
    { at: 6_000, to: "open", reason: "consecutive_failures", cooldownMs: 2_000 },
    { at: 9_000, to: "half-open", reason: "cooldown_elapsed", cooldownMs: 2_000 },
    { at: 9_000, to: "open", reason: "probe_failed", cooldownMs: 4_000 },
    { at: 13_500, to: "half-open", reason: "cooldown_elapsed", cooldownMs: 4_000 },
    { at: 13_500, to: "closed", reason: "probe_succeeded", cooldownMs: 2_000 },
  ]);

  // After the circuit opened, the primary got at most one request per cooldown: its probes.
  const opened = transitions[0]!.at;
  const primaryRequests = emulator
    .mocks!.attempts.filter((attempt) => attempt.provider === "anthropic")
    .map((attempt) => attempt.receivedAt - start);
  const whileOpen = primaryRequests.filter((at) => at > opened && at < primaryAgain!.at);
  expect(whileOpen).toEqual([9_000]);
  // Until it opened, one request per call (no retries of a 503 on the primary); the fifth
  // failure opened it.
  expect(primaryRequests.filter((at) => at <= opened)).toEqual([0, 1_500, 3_000, 4_500, 6_000]);
});
