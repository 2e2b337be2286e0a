import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport, gatewayLogsSource } from "../../src/analytics/index.ts";
import { createGatewayClient } from "../../src/client/index.ts";
import { loadConfig, type StepwiseConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";

const repoRoot = path.resolve(import.meta.dirname, "../..");
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
    breaker: false,
  });
  const ask = (index: number) =>
    client.chat({ route: "default", messages: [{ role: "user", content: `Question ${index}` }] });
  for (let index = 0; index < 6; index++) await ask(index);
  emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
  for (let index = 6; index < 10; index++) await ask(index);
});

afterAll(async () => {
  await emulator.close();
});

describe("stepwise report --source logs against the emulator's REST subset", () => {
  it("reads the gateway's log records through the cloudflare SDK, attributed to the client's route", async () => {
    const report = await buildReport(
      gatewayLogsSource({
        accountId: config.accountId,
        gatewayId: "chat-prod",
        apiToken: "local",
        baseURL: emulator.restUrl,
        perPage: 3,
      }),
    );
    // One record per step tried: 6 calls served by step 0, then 4 calls whose step 0 failed
    // (anthropic down, retried by the gateway within the step) and step 1 served.
    expect(report.source.records).toBe(14);
    expect(report.source.malformed).toBe(0);
    expect(report.routes.map((row) => [row.key.gateway, row.key.route])).toEqual([
      ["chat-prod", "default"],
    ]);
    expect(report.totals.steps).toEqual({ "0": 10, "1": 4 });
    expect(report.totals.ok).toBe(10);
    const failed = report.groups.find(
      (row) => row.key.step === 0 && row.key.provider === "anthropic",
    );
    expect(failed?.figures.calls).toBe(10);
    expect(failed?.figures.ok).toBe(6);
  });
});
