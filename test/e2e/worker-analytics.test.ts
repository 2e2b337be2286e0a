/**
 * One run seen two ways. The thin client calls the deployed Worker bundle (workerd) in front of
 * the emulated gateway: healthy calls, calls that fall over to the second step after a bad key is
 * rotated in, calls that fail on every step. The client records its own events; the Worker writes
 * one Analytics Engine point per call. `stepwise report --source analytics-engine` over those
 * points must show the same calls, steps, success and availability as `stepwise report` over the
 * client's events.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reportCommand } from "../../src/cli/commands/report.ts";
import { type CallEvent, callbackRecorder, createGatewayClient } from "../../src/client/index.ts";
import { createAppToken, rotateKey } from "../../src/worker-admin/index.ts";
import {
  chatProdConfig,
  type RunningWorker,
  startWorkerOverEmulator,
  type WorkerOverEmulator,
} from "./worker-harness.ts";

const adminToken = "e2e-analytics-admin-token-0123";
const keys = {
  anthropic: "sk-ant-e2e-analytics-0001",
  openai: "sk-openai-e2e-analytics-02",
  wrong: "sk-e2e-analytics-WRONG-003",
};

const config = chatProdConfig(
  [
    { provider: "anthropic", model: "claude-sonnet-4-5" },
    { provider: "openai", model: "gpt-4o-mini" },
  ],
  {
    authentication: true,
    models: {
      "anthropic/claude-sonnet-4-5": { input: 3, output: 15 },
      "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
    },
  },
);

let stack: WorkerOverEmulator;
let worker: RunningWorker;
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-e2e-analytics-"));
  stack = await startWorkerOverEmulator({
    config,
    adminToken,
    gatewayToken: "e2e-analytics-gateway-token",
    mockKeys: { anthropic: [keys.anthropic], openai: [keys.openai] },
    recordAnalytics: true,
  });
  ({ worker } = stack);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
});

/** Runs `stepwise report …` and returns the JSON report it printed. */
async function report(args: string[]): Promise<Record<string, unknown>> {
  let output = "";
  await reportCommand({
    env: {},
    write: (text) => {
      output += text;
    },
  }).parseAsync([...args, "--by", "route,step", "--json"], { from: "user" });
  return JSON.parse(output);
}

/** What both reports must agree on: calls, steps, success, availability, tokens, cost (not latency). */
function figures(value: Record<string, unknown>) {
  const pick = (entry: Record<string, unknown>) => ({
    calls: entry.calls,
    ok: entry.ok,
    answered: entry.answered,
    steps: entry.steps,
    fallbacks: entry.fallbacks,
    successRate: entry.successRate,
    availability: entry.availability,
    tokensIn: entry.tokensIn,
    tokensOut: entry.tokensOut,
    cost: typeof entry.cost === "number" ? Math.round(entry.cost * 1e9) / 1e9 : entry.cost,
  });
  const groups = (value.groups as { key: unknown; figures: Record<string, unknown> }[]).map(
    (group) => ({ key: group.key, ...pick(group.figures) }),
  );
  return { totals: pick(value.totals as Record<string, unknown>), groups };
}

describe("Analytics Engine points of a proxied run", () => {
  it("report from the Worker's points = report from the client's own events", async () => {
    const { admin } = stack;
    await rotateKey({ ...admin, provider: "anthropic", key: keys.anthropic, label: "e2e" });
    await rotateKey({ ...admin, provider: "openai", key: keys.openai, label: "e2e" });
    const app = await createAppToken({ ...admin, name: "e2e-analytics" });
    const { token } = app;
    const events: CallEvent[] = [];
    const client = createGatewayClient({
      accountId: config.accountId,
      gatewayId: "chat-prod",
      baseUrl: worker.url,
      gatewayToken: token,
      routes: { default: config.gateways[0]!.routes.default!.steps },
      prices: config.models,
      recorder: callbackRecorder((event) => void events.push(event)),
      maxAttempts: 1,
    });
    const chat = async (times: number) => {
      for (let index = 0; index < times; index++) {
        await client
          .chat({ route: "default", messages: [{ role: "user", content: `hi ${index}` }] })
          .catch(() => undefined);
      }
    };
    await chat(6);
    await rotateKey({ ...admin, provider: "anthropic", key: keys.wrong, label: "e2e:bad" });
    await chat(4);
    await rotateKey({ ...admin, provider: "openai", key: keys.wrong, label: "e2e:bad" });
    await chat(2);

    expect(events).toHaveLength(12);
    expect(events.map((event) => event.step)).toEqual([
      ...[0, 0, 0, 0, 0, 0],
      ...[1, 1, 1, 1],
      ...[null, null],
    ]);
    const points = await worker.waitForAnalyticsPoints(12);
    expect(points).toHaveLength(12);

    const eventsFile = path.join(directory, "events.jsonl");
    await writeFile(eventsFile, events.map((event) => JSON.stringify(event)).join("\n"));
    const exportFile = path.join(directory, "analytics-engine.jsonl");
    const stamped = points.map((point, index) => {
      const row: Record<string, unknown> = {
        timestamp: events[index]!.time,
        index1: point.indexes?.[0],
      };
      point.blobs?.forEach((blob, column) => {
        row[`blob${column + 1}`] = blob;
      });
      point.doubles?.forEach((double, column) => {
        row[`double${column + 1}`] = double;
      });
      return JSON.stringify(row);
    });
    await writeFile(exportFile, stamped.join("\n"));

    const fromClient = await report([eventsFile, "--source", "events"]);
    const fromWorker = await report([exportFile, "--source", "analytics-engine"]);
    expect(figures(fromWorker)).toEqual(figures(fromClient));
    expect(figures(fromWorker).totals).toMatchObject({
      calls: 12,
      ok: 10,
      fallbacks: 4,
      steps: { "0": 6, "1": 4, none: 2 },
    });
    expect(figures(fromWorker).groups).toHaveLength(3);
    // The Worker's points carry the client's event ids, scoped to the app as the gateway got
    // them (`<app>:<id>`, app-scope.ts): the two records of a call can be joined.
    expect(points.map((point) => point.blobs?.[9])).toEqual(
      events.map((event) => `${app.id}:${event.id}`),
    );
    const everything = JSON.stringify(points);
    for (const secret of [...Object.values(keys), token, adminToken]) {
      expect(everything).not.toContain(secret);
    }
  }, 60_000);
});
