/**
 * Records a real events file for the steering report tests: the real client (with provider limits,
 * health steering and a hedged route) calls the real emulator over loopback HTTP, and its JSON-lines
 * recorder writes the events `stepwise report` reads. The health document comes from the Worker's
 * own builder (`healthDocument`, on the Worker's view of the config). Faults and time are driven by the caller (fake timers for
 * `setTimeout`, one injected clock), so every call takes the path the tests count on:
 *
 * route `default` (anthropic → openai → workers-ai, hedged after 100 ms), 6 calls:
 *  1. served by anthropic (its rpm cap of 1 is now used);
 *  2. anthropic skipped (`rpm_cap`), served by openai;
 *  3. anthropic skipped, openai demoted (`down`), served by workers-ai;
 *  4. (a minute later) anthropic never answers: the hedge (openai) is sent and wins;
 *  5. anthropic answers after 1 s, the hedge (openai, 5 s) was sent at 100 ms: the first request wins;
 *  6. (a minute later) anthropic never answers; the hedge is due but over the hourly cost cap
 *     (`cost_cap`), so the gateway's step timeout moves the call to openai.
 * route `plain` (workers-ai only), 1 call from a second client of the same app without limits,
 * health or hedging: its event records no steering at all (not even empty lists), so the report
 * shows it as not recorded.
 */
import { setTimeout as delay } from "node:timers/promises";
import { vi } from "vitest";
import { createHealthSteering } from "../../src/client/health/health-steering.ts";
import { createGatewayClient } from "../../src/client/index.ts";
import { createProviderLimits } from "../../src/client/limits/provider-limits.ts";
import { jsonLinesRecorder } from "../../src/client/node/jsonl-recorder.ts";
import { parseConfig, workerView } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { healthDocument } from "../../src/worker/health/health-document.ts";
import type { HealthState } from "../../src/worker/health/model-health.ts";

const accountId = "0123456789abcdef0123456789abcdef";
export const hedgeAfterMs = 100;
/** The primary's time to first byte at the gateway: long, so only the test ends a held step. */
const stepTimeoutMs = 30_000;
export const prompt = [{ role: "user", content: "What is the capital of Italy?" }] as const;
export const prices = {
  "anthropic/claude-sonnet-4-5": { input: 3, output: 15 },
  "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  "workers-ai/@cf/meta/llama-3.1-8b-instruct": { input: 0.28, output: 0.83 },
};

/** The client's estimate of starting the prompt on a model (its hedge cost rule). */
export function promptCost(model: keyof typeof prices): number {
  const characters = prompt.reduce((sum, message) => sum + message.content.length, 0);
  return (Math.ceil(characters / 4) * prices[model].input) / 1_000_000;
}

/** The cap lets the two hedges of calls 4 and 5 through and not a third. */
const maxExtraCostPerHour =
  promptCost("anthropic/claude-sonnet-4-5") + 1.5 * promptCost("openai/gpt-4o-mini");

const config = parseConfig({
  accountId,
  gateways: [
    {
      id: "chat-test",
      authentication: true,
      routes: {
        default: {
          steps: [
            { provider: "anthropic", model: "claude-sonnet-4-5", timeoutMs: stepTimeoutMs },
            { provider: "openai", model: "gpt-4o-mini", timeoutMs: stepTimeoutMs },
            { provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" },
          ],
          hedge: { afterMs: hedgeAfterMs, maxExtraCostPerHour },
        },
        plain: [{ provider: "workers-ai", model: "@cf/meta/llama-3.1-8b-instruct" }],
      },
    },
  ],
  keys: { providers: ["anthropic", "openai", "workers-ai"] },
  worker: { healthProbe: { enabled: true } },
  models: prices,
});

/** A `GET /health` answer from the Worker's builder: openai in `openaiState`, the rest healthy. */
function healthAnswer(openaiState: HealthState, now: number): Response {
  const view = (provider: string, model: string, state: HealthState) => ({
    provider,
    slowMs: 5_000,
    record: {
      model,
      state,
      reason: state === "healthy" ? null : "no answer within 5000 ms",
      since: now - 120_000,
      consecutive: 2,
      latencies: [380],
      last: {
        model,
        latencyMs: state === "down" ? null : 380,
        httpStatus: state === "down" ? 0 : 200,
        parsed: state !== "down",
        checkedAt: now - 30_000,
      },
      probation: null,
    },
  });
  const document = healthDocument(
    workerView(config),
    [
      view("anthropic", "claude-sonnet-4-5", "healthy"),
      view("openai", "gpt-4o-mini", openaiState),
      view("workers-ai", "@cf/meta/llama-3.1-8b-instruct", "healthy"),
    ],
    now,
  );
  return Response.json(document, { headers: { "cache-control": "private, max-age=60" } });
}

/** Resolves once `condition` holds, polling on real time (`setTimeout` itself is faked). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await delay(5);
}

/**
 * Runs the calls above against a fresh emulator and writes their events to `path`. The caller
 * has faked `setTimeout`/`clearTimeout` (`vi.useFakeTimers({ toFake: [...] })`).
 */
export async function recordSteeredCalls(path: string): Promise<void> {
  let time = Date.parse("2026-05-01T12:00:00.000Z");
  const now = () => time;
  let openaiState: HealthState = "healthy";
  const emulator: Emulator = await startEmulator({ config, gatewayToken: "emulator-token" });
  try {
    const mocks = emulator.mocks!;
    const attemptsOf = (provider: string) =>
      mocks.attempts.filter((attempt) => attempt.provider === provider).length;
    const health = createHealthSteering({
      url: "https://stepwise-keys.test",
      fetch: async () => healthAnswer(openaiState, time),
      now,
      maxAgeMs: 60_000,
    });
    const recorder = jsonLinesRecorder({ path });
    const options = {
      accountId,
      gatewayId: "chat-test",
      baseUrl: emulator.url,
      gatewayToken: emulator.gatewayToken,
      routes: config.gateways[0]!.routes,
      prices: config.models,
      keyLookup: (provider: string) => `test-key-${provider}`,
      now,
      recorder,
    };
    const client = createGatewayClient({
      ...options,
      limits: createProviderLimits({ caps: { anthropic: { rpm: 1 } }, now }),
      health,
    });
    const bare = createGatewayClient(options);
    const call = (route = "default") => client.chat({ route, messages: prompt });
    const setHealth = async (state: HealthState) => {
      openaiState = state;
      await health.refresh();
    };
    await health.refresh();

    await call(); // 1
    await call(); // 2
    await setHealth("down");
    await call(); // 3
    await setHealth("healthy");
    time += 60_001; // anthropic's rpm cap frees up

    // 4: the primary never answers; the hedge goes out after 100 ms and wins.
    mocks.setFaults({ rules: [{ provider: "anthropic", kind: "no-response" }] });
    let before = attemptsOf("openai");
    let pending = call();
    await until(() => attemptsOf("anthropic") > 0);
    await vi.advanceTimersByTimeAsync(hedgeAfterMs);
    await until(() => attemptsOf("openai") > before);
    await pending;

    // 5: both slow; the hedge is sent at 100 ms, the primary answers at 1 s and wins.
    mocks.setFaults({
      rules: [
        { provider: "anthropic", kind: "slow-first-byte", delayMs: 1_000 },
        { provider: "openai", kind: "slow-first-byte", delayMs: 5_000 },
      ],
    });
    const anthropicBefore = attemptsOf("anthropic");
    before = attemptsOf("openai");
    pending = call();
    await until(() => attemptsOf("anthropic") > anthropicBefore);
    await vi.advanceTimersByTimeAsync(hedgeAfterMs);
    await until(() => attemptsOf("openai") > before);
    await vi.advanceTimersByTimeAsync(1_000 - hedgeAfterMs);
    await pending;

    // 6: the primary never answers, the hedge is over the cost cap; the step timeout moves on.
    time += 60_001; // anthropic's rpm cap frees up
    mocks.setFaults({ rules: [{ provider: "anthropic", kind: "no-response" }] });
    const held = attemptsOf("anthropic");
    pending = call();
    await until(() => attemptsOf("anthropic") > held);
    await vi.advanceTimersByTimeAsync(hedgeAfterMs);
    await vi.advanceTimersByTimeAsync(stepTimeoutMs);
    await pending;

    mocks.setFaults({ rules: [] });
    await bare.chat({ route: "plain", messages: prompt });
    await recorder.flush();
  } finally {
    await emulator.close();
  }
}
