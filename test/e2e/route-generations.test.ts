/**
 * One route, three endpoints, one meaning of "the step that served" (issue 25's Done-when): the
 * dev stack's `chat-dynamic/default` called on the universal endpoint (the client sends the
 * chain), on the compat endpoint as `dynamic/default` and on the REST API as `dynamic/default`
 * (the gateway runs the chain and names the model in `cf-aig-provider` / `cf-aig-model`, as
 * features/dynamic-routing/usage.mdx says: "`cf-aig-model` - The model used", "`cf-aig-provider`
 * - The slug of provider used"). Each call's event names the same step, provider and model, and
 * `stepwise report` counts all of them in one row per step of one table.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Report } from "../../src/analytics/index.ts";
import { reportCommand } from "../../src/cli/commands/report.ts";
import { createGatewayFetch } from "../../src/client/fetch.ts";
import {
  type CallEvent,
  createGatewayClient,
  type GatewayClientOptions,
  memoryRecorder,
} from "../../src/client/index.ts";
import { createRestClient } from "../../src/client/rest/index.ts";
import { loadConfig } from "../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const recorder = memoryRecorder();
let emulator: Emulator;
let directory: string;

/** The endpoint each call went to, by event id. */
const endpointOf = new Map<string, string>();

beforeAll(async () => {
  const { config } = await loadConfig({ stack: "dev", cwd: repoRoot });
  const gateway = config.gateways.find((candidate) => candidate.id === "chat-dynamic")!;
  emulator = await startEmulator({ config });
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-generations-"));
  const options: GatewayClientOptions = {
    accountId: config.accountId,
    gatewayId: gateway.id,
    baseUrl: emulator.url,
    gatewayToken: emulator.gatewayToken,
    routes: gateway.routes,
    prices: config.models,
    recorder,
  };
  const universal = createGatewayClient(options);
  const compat = createGatewayClient({ ...options, mode: "dynamic" });
  const rest = createRestClient({ ...options, apiToken: emulator.gatewayToken });
  const gatewayFetch = createGatewayFetch(options);
  const compatSdk = new OpenAI({
    apiKey: emulator.gatewayToken,
    baseURL: universal.url("compat"),
    fetch: gatewayFetch,
  });
  const restSdk = new OpenAI({
    apiKey: emulator.gatewayToken,
    baseURL: rest.url(),
    fetch: gatewayFetch,
  });
  // A question per call: the gateway caches answers (ttl 300), and every call here is to reach
  // a provider through the route.
  let asked = 0;
  const callAll = async (question: string) => {
    const messages = () => [{ role: "user" as const, content: `${question} (${++asked})` }];
    for (const [endpoint, call] of [
      ["universal", () => universal.chat({ route: "default", messages: messages() })],
      ["compat dynamic/default", () => compat.chat({ route: "default", messages: messages() })],
      ["REST dynamic/default", () => rest.chat({ route: "default", messages: messages() })],
      [
        "compat dynamic/default, OpenAI SDK",
        () => compatSdk.chat.completions.create({ model: "dynamic/default", messages: messages() }),
      ],
      [
        "REST dynamic/default, OpenAI SDK",
        () => restSdk.chat.completions.create({ model: "dynamic/default", messages: messages() }),
      ],
    ] as const) {
      const before = recorder.events.length;
      await call();
      // createGatewayFetch records once the SDK's copy of the body has been read to its end.
      await vi.waitFor(() => expect(recorder.events).toHaveLength(before + 1));
      endpointOf.set(recorder.events.at(-1)!.id, endpoint);
    }
  };
  await callAll("What is Cloudflare?"); // healthy: step 0 (Anthropic) serves
  emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "unavailable" }] });
  await callAll("What is AI Gateway?"); // Anthropic down: step 1 (OpenAI) serves, on every endpoint
  await writeFile(
    path.join(directory, "calls.jsonl"),
    recorder.events.map((event) => JSON.stringify(event)).join("\n"),
  );
});

afterAll(async () => {
  await emulator?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
});

/** `stepwise report …args`, through the command's action; returns what it printed. */
async function report(args: string[]): Promise<string> {
  let output = "";
  const command = reportCommand({
    env: {},
    write: (text) => {
      output += text;
    },
  }).exitOverride();
  await command.parseAsync(args, { from: "user" });
  return output;
}

const served = (event: CallEvent) => [event.step, event.provider, event.model];

describe("one route on the universal endpoint, compat dynamic/<route> and REST dynamic/<route>", () => {
  it("gives events whose served step agrees", () => {
    expect(recorder.events).toHaveLength(10);
    expect(new Set(recorder.events.map((event) => event.mode))).toStrictEqual(
      new Set(["universal", "dynamic", "rest", "fetch"]),
    );
    const [healthy, fallback] = [recorder.events.slice(0, 5), recorder.events.slice(5)];
    for (const event of healthy) {
      expect(served(event), endpointOf.get(event.id)).toStrictEqual([
        0,
        "anthropic",
        "claude-sonnet-4-5",
      ]);
    }
    for (const event of fallback) {
      expect(served(event), endpointOf.get(event.id)).toStrictEqual([1, "openai", "gpt-4o-mini"]);
    }
    for (const event of recorder.events) {
      expect(event, endpointOf.get(event.id)).toMatchObject({
        ok: true,
        route: "default",
        cacheStatus: "MISS",
      });
    }
  });

  it("is counted by stepwise report in one table: one row per step, every endpoint's calls in it", async () => {
    const file = path.join(directory, "calls.jsonl");
    const json = JSON.parse(await report([file, "--json"])) as Report;
    const rows = json.groups.map(({ key, figures }) => [key.step, key.provider, figures.calls]);
    expect(rows).toStrictEqual([
      [0, "anthropic", 5],
      [1, "openai", 5],
    ]);
    const text = await report([file, "--route", "default"]);
    const table = text.split("Routes (step share of each route's calls)")[1] ?? "";
    expect(table).toMatch(/chat-dynamic\s+default\s+0\s+anthropic\s+claude-sonnet-4-5\s+5\s/);
    expect(table).toMatch(/chat-dynamic\s+default\s+1\s+openai\s+gpt-4o-mini\s+5\s/);
  });
});
