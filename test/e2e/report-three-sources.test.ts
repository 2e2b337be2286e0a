/**
 * The same traffic read three ways gives the same calls, step shares, availability and fallback
 * rate per route: the client's events, the gateway's logs (records joined into calls by event id,
 * read through the `cloudflare` SDK from the emulator's REST subset), and Analytics Engine points
 * (encoded with the Worker's schema module, queried through a fake SQL API that runs the SQL).
 *
 * The points here are encoded from the client's view of each call; that the companion Worker
 * writes exactly those points for calls it proxies is the Worker's own end-to-end test. Together
 * they close the loop from a call to the report.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../src/analytics/index.ts";
import { createGatewayClient, memoryRecorder } from "../../src/client/index.ts";
import { loadConfig, type StepwiseConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { callPointOf } from "../../tools/fakes/call-points.ts";
import {
  analyticsEngineOver,
  emulatorLogsSource,
  memorySource,
  perRoute,
} from "../helpers/three-sources.ts";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const recorder = memoryRecorder();
let emulator: Emulator;
let config: StepwiseConfig;

beforeAll(async () => {
  ({ config } = await loadConfig({ stack: "dev", cwd: repoRoot }));
  emulator = await startEmulator({ config });
  const gateway = config.gateways[0]!;
  const client = createGatewayClient({
    accountId: config.accountId,
    gatewayId: gateway.id,
    baseUrl: emulator.url,
    gatewayToken: emulator.gatewayToken,
    routes: gateway.routes,
    keyLookup: () => "test-key",
    recorder,
  });
  const ask = (route: string, index: number) =>
    client
      .chat({ route, messages: [{ role: "user", content: `Question ${index}` }] })
      .catch(() => undefined);
  const faults = emulator.mocks!;
  for (let index = 0; index < 6; index++) await ask("default", index);
  for (let index = 0; index < 3; index++) await ask("fast", 100 + index);
  faults.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
  for (let index = 6; index < 10; index++) await ask("default", index);
  faults.setFaults({
    rules: ["anthropic", "openai", "workers-ai", "groq"].map((provider) => ({
      provider,
      kind: "unavailable" as const,
    })),
  });
  for (let index = 10; index < 12; index++) await ask("default", index);
  await ask("fast", 103);
  faults.setFaults({ rules: [{ provider: "groq", kind: "unavailable" }] });
  await ask("fast", 104);
}, 120_000);

afterAll(async () => {
  await emulator?.close();
});

describe("one run reported from the events, the gateway logs and Analytics Engine", () => {
  it("gives the same calls, step shares, availability and fallback rate per route", async () => {
    const events = recorder.events;
    expect(events).toHaveLength(17);
    const fromEvents = await buildReport(memorySource(events));

    const fromLogs = await buildReport(emulatorLogsSource(config.accountId, "chat-prod", emulator));
    expect(fromLogs.source.malformed).toBe(0);
    // More records than calls: every fallback and failure left a record per step tried.
    expect(fromLogs.source.records).toBeGreaterThan(17);

    const { sql, source } = await analyticsEngineOver(
      config.accountId,
      events.map((event) => ({ time: Date.parse(event.time), point: callPointOf(event) })),
    );
    const fromAnalyticsEngine = await buildReport(source);
    sql.close();

    const expected = perRoute(fromEvents);
    expect(expected["chat-prod/default"]).toMatchObject({
      calls: 12,
      steps: { "0": 6, "1": 4, none: 2 },
      fallbackRate: 4 / 12,
      availability: 10 / 12,
    });
    expect(expected["chat-prod/fast"]).toMatchObject({
      calls: 5,
      steps: { "0": 3, "1": 1, none: 1 },
    });
    expect(perRoute(fromLogs)).toEqual(expected);
    expect(perRoute(fromAnalyticsEngine)).toEqual(expected);
  });
});
