/**
 * When the gateway falls back inside one request, the client learns only that step 0 was passed
 * over (`status` and `errorCode` null, "the gateway reported no detail"); the gateway's own log
 * record of that step holds its status. Real client, real emulator (its logs REST subset read
 * through the `cloudflare` SDK): the report from the gateway's logs, and from the client's events
 * with `--reasons-from-logs`, both name the reason.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport } from "../../../src/analytics/report.ts";
import { gatewayLogsSource } from "../../../src/analytics/sources/gateway-logs.ts";
import {
  failedStepsOfRecords,
  withLogReasons,
} from "../../../src/analytics/sources/log-failure-reasons.ts";
import { reportCommand } from "../../../src/cli/commands/report.ts";
import { createGatewayClient, memoryRecorder } from "../../../src/client/index.ts";
import { loadConfig, type StepwiseConfig } from "../../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../../src/emulator/index.ts";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const recorder = memoryRecorder();
let emulator: Emulator;
let config: StepwiseConfig;
let directory = "";
let eventsFile = "";

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
  emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "overloaded" }] });
  for (let index = 0; index < 3; index++) {
    await client.chat({ route: "default", messages: [{ role: "user", content: `Q ${index}` }] });
  }
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-log-reasons-"));
  eventsFile = path.join(directory, "events.jsonl");
  await writeFile(eventsFile, recorder.events.map((event) => JSON.stringify(event)).join("\n"));
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
});

describe("reasons of the steps the gateway passed over", () => {
  it("are missing from the client's events: the gateway said nothing in its answer", () => {
    expect(recorder.events).toHaveLength(3);
    for (const event of recorder.events) {
      expect(event).toMatchObject({ ok: true, step: 1 });
      expect(event.failedSteps).toEqual([
        expect.objectContaining({ step: 0, provider: "anthropic", status: null, errorCode: null }),
      ]);
    }
  });

  it("come from the gateway's log records in the logs report", async () => {
    const report = await buildReport(
      gatewayLogsSource({
        accountId: config.accountId,
        gatewayId: config.gateways[0]!.id,
        apiToken: "local",
        baseURL: emulator.restUrl,
      }),
    );
    const route = report.explanation?.routes.find((row) => row.key.route === "default");
    const primary = route?.steps.find((step) => step.provider === "anthropic");
    expect(primary).toMatchObject({ failed: 3 });
    expect(Object.keys(primary?.reasons ?? {})).toEqual(["server_error"]);
  });

  it("fill the client's events with --reasons-from-logs", async () => {
    let output = "";
    const command = reportCommand({
      env: { CLOUDFLARE_API_TOKEN: "local" },
      write: (text) => {
        output += text;
      },
    }).exitOverride();
    await command.parseAsync(
      [
        eventsFile,
        "--reasons-from-logs",
        "--gateway",
        config.gateways[0]!.id,
        "--account-id",
        config.accountId,
        "--base-url",
        emulator.restUrl,
        "--json",
      ],
      { from: "user" },
    );
    const report = JSON.parse(output);
    expect(report.source.name).toContain("reasons from gateway logs");
    const route = report.explanation.routes.find(
      (row: { key: { route: string } }) => row.key.route === "default",
    );
    const primary = route.steps.find((step: { provider: string }) => step.provider === "anthropic");
    expect(primary).toMatchObject({ failed: 3, reasons: { server_error: 3 } });
    expect(output).not.toContain("no_detail");
  });
});

describe("the log records of one call", () => {
  const record = { provider: "anthropic", model: "m", step: 0 };
  it("become failed steps with their status; a call whose records all succeeded has none", () => {
    expect(
      failedStepsOfRecords([
        { ...record, success: false, status_code: 429 },
        { ...record, step: 1, provider: "openai", success: true, status_code: 200 },
      ]),
    ).toEqual({
      failedSteps: [
        {
          step: 0,
          provider: "anthropic",
          model: "m",
          status: 429,
          errorCode: "http_429",
          at: "request",
        },
      ],
    });
    expect(failedStepsOfRecords([{ ...record, success: true, status_code: 200 }])).toEqual({});
  });

  it("fill only the steps the event lists without detail", () => {
    const event = {
      failedSteps: [
        {
          step: 0,
          provider: "anthropic",
          model: "m",
          status: null,
          errorCode: null,
          at: "request" as const,
        },
        {
          step: 1,
          provider: "openai",
          model: "n",
          status: 500,
          errorCode: "api_call_error",
          at: "request" as const,
        },
      ],
    };
    const logs = [
      {
        step: 0,
        provider: "anthropic",
        model: "m",
        status: 529,
        errorCode: "http_529",
        at: "request" as const,
      },
    ];
    expect(withLogReasons(event, logs).failedSteps).toEqual([
      { ...event.failedSteps[0], status: 529, errorCode: "http_529" },
      event.failedSteps[1],
    ]);
    expect(withLogReasons(event, [])).toBe(event);
  });
});
