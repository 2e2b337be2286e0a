/**
 * One call, one truth, from every source (issue #26 item 1). One emulator run behind the
 * companion Worker (workerd) mixes failovers the client does itself, each of which re-sends or
 * reorders the chain as a new request with the same `cf-aig-event-id` (a stream cut, a stream
 * stall, a context-length refusal, a chain an open breaker reordered, a `validate` rejection, a
 * Retry-After that leaves a step out), with failovers the gateway does within one request
 * (streamed and not) and calls no step served. The report from the client's events, from the
 * gateway's logs (records joined through each request's place in the route, the `stepwise`
 * metadata entry) and from the Worker's Analytics Engine points (its last attempt per call, by
 * the SQL the report sends) agree call for call: served step, success, tokens and cost; and per
 * route: step shares, fallback rate, availability, tokens and cost. An OpenAI SDK call through
 * `createGatewayFetch` that the SDK retried is one call in all three too (issue #26 item 3).
 */

import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport, type Report } from "../../src/analytics/index.ts";
import { callsTable } from "../../src/analytics/sql/call-point-sql.ts";
import { createCircuitBreaker } from "../../src/client/breaker.ts";
import { createGatewayFetch } from "../../src/client/fetch.ts";
import {
  type CallEvent,
  callbackRecorder,
  createGatewayClient,
  type GatewayClientOptions,
} from "../../src/client/index.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import type { FaultRule } from "../../src/emulator/mocks/types.ts";
import { appOwnEventId } from "../../src/wire/event-id.ts";
import { createAppToken, rotateKey } from "../../src/worker-admin/index.ts";
import {
  analyticsEngineOver,
  emulatorLogsSource,
  memorySource,
  perRoute,
} from "../helpers/three-sources.ts";
import {
  chatProdConfig,
  type RunningWorker,
  startWorkerOverEmulator,
  type WorkerOverEmulator,
} from "./worker-harness.ts";

const adminToken = "e2e-one-truth-admin-token-01";
const keys = {
  anthropic: "sk-ant-e2e-one-truth-00001",
  openai: "sk-openai-e2e-one-truth-02",
  groq: "gsk-e2e-one-truth-key-0003",
};

const config = chatProdConfig(
  [
    { provider: "anthropic", model: "claude-sonnet-4-5" },
    { provider: "openai", model: "gpt-4o-mini" },
    { provider: "groq", model: "llama-3.1-8b-instant" },
  ],
  {
    authentication: true,
    models: {
      "anthropic/claude-sonnet-4-5": { input: 3, output: 15 },
      "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
      "groq/llama-3.1-8b-instant": { input: 0.05, output: 0.08 },
    },
  },
);

let stack: WorkerOverEmulator;
let emulator: Emulator;
let worker: RunningWorker;
const events: CallEvent[] = [];
/** What each call was, by its event id. */
const scenarioOf = new Map<string, string>();
let requests = 0;

beforeAll(async () => {
  stack = await startWorkerOverEmulator({
    config,
    adminToken,
    gatewayToken: "e2e-one-truth-gateway-token",
    mockKeys: { anthropic: [keys.anthropic], openai: [keys.openai], groq: [keys.groq] },
    recordAnalytics: true,
  });
  ({ emulator, worker } = stack);
  const { admin } = stack;
  for (const provider of ["anthropic", "openai", "groq"] as const) {
    await rotateKey({ ...admin, provider, key: keys[provider], label: "e2e" });
  }
  const { token } = await createAppToken({ ...admin, name: "e2e-one-truth" });
  let next = 0;
  let scenario = "";
  const clientOptions = (extra: Partial<GatewayClientOptions> = {}): GatewayClientOptions => ({
    accountId: config.accountId,
    gatewayId: "chat-prod",
    baseUrl: worker.url,
    gatewayToken: token,
    routes: { default: config.gateways[0]!.routes.default!.steps },
    prices: config.models,
    generateId: () => {
      const id = `call-${String(++next).padStart(3, "0")}`;
      scenarioOf.set(id, scenario);
      return id;
    },
    recorder: callbackRecorder((event) => void events.push(event)),
    fetch: (input, init) => {
      requests += 1;
      return globalThis.fetch(input, init);
    },
    retryDelayMs: 1,
    // A stalled stream (3 s, below) is given up on long before it would resume, and a healthy
    // one is not given up on when a loaded machine delays its next chunk (at 300 ms, a full
    // `npm test` beside other work once failed a rescued stream's fallback that way).
    streamIdleTimeoutMs: 1_500,
    ...extra,
  });
  const client = createGatewayClient(clientOptions());
  const faults = emulator.mocks!;
  const run = async (
    name: string,
    rules: FaultRule[],
    calls: number,
    how: "chat" | "stream",
    options: { validate?: (answer: { served: { provider: string | null } }) => boolean } = {},
    on = client,
  ) => {
    scenario = name;
    faults.setFaults({ rules });
    for (let index = 0; index < calls; index++) {
      const messages = [{ role: "user" as const, content: `${name} ${index}` }];
      const call =
        how === "chat"
          ? on.chat({ route: "default", messages, ...options })
          : on.stream({ route: "default", messages, ...options }).collect();
      await call.catch(() => undefined);
    }
  };
  await run("healthy", [], 3, "chat");
  await run("healthy stream", [], 2, "stream");
  // The gateway falls back within one request.
  await run("gateway fallback", [{ provider: "anthropic", kind: "overloaded" }], 2, "chat");
  await run(
    "gateway fallback stream",
    [{ provider: "anthropic", kind: "overloaded" }],
    2,
    "stream",
  );
  // The client re-sends the rest of the chain as a new request.
  await run("stream cut", [{ provider: "anthropic", kind: "stream-cut" }], 2, "stream");
  await run(
    "stream stall",
    [{ provider: "anthropic", kind: "stream-stall", delayMs: 3_000 }],
    2,
    "stream",
  );
  await run("context length", [{ provider: "anthropic", kind: "context-length" }], 2, "chat");
  await run(
    "context length stream",
    [{ provider: "anthropic", kind: "context-length" }],
    1,
    "stream",
  );
  await run("validate rejection", [], 2, "chat", {
    validate: (answer) => answer.served.provider !== "anthropic",
  });
  // Every step fails once; groq's 429 asks for 10 minutes, so the route is tried again without it.
  await run(
    "retry-after exclusion",
    [
      { provider: "anthropic", kind: "unavailable", count: 1 },
      { provider: "openai", kind: "unavailable", count: 1 },
      { provider: "groq", kind: "rate-limit", retryAfterSeconds: 600, count: 1 },
    ],
    1,
    "chat",
  );
  // An open circuit sends the chain reordered: openai, groq, then anthropic.
  const broken = createGatewayClient(
    clientOptions({
      breaker: createCircuitBreaker({ failureThreshold: 1, cooldownMs: 600_000 }),
    }),
  );
  await run(
    "breaker opens",
    [{ provider: "anthropic", kind: "unavailable" }],
    1,
    "chat",
    {},
    broken,
  );
  await run("breaker reordered", [], 2, "chat", {}, broken);
  await run("breaker reordered stream", [], 1, "stream", {}, broken);
  // No step serves.
  const down = ["anthropic", "openai", "groq"].map((provider) => ({
    provider,
    kind: "unavailable" as const,
  }));
  await run(
    "all down",
    down,
    2,
    "chat",
    {},
    createGatewayClient(clientOptions({ maxAttempts: 1 })),
  );
  // The OpenAI SDK through createGatewayFetch, on the Worker's provider-native endpoint: the SDK
  // itself retries a 503, and its tries are one call.
  scenario = "sdk retry";
  faults.setFaults({ rules: [{ provider: "openai", kind: "unavailable", count: 1 }] });
  const openai = new OpenAI({
    apiKey: "unused-the-worker-injects-the-key",
    baseURL: `${worker.url}/v1/${config.accountId}/chat-prod/openai`,
    fetch: createGatewayFetch(clientOptions()),
    maxRetries: 2,
  });
  const recorded = events.length;
  await openai.chat.completions.create({
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "sdk retry" }],
  });
  // Recorded once the answer's copy has been read for its usage.
  while (events.length === recorded) await new Promise((resolve) => setTimeout(resolve, 10));
  faults.setFaults({ rules: [] });
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

/** The app's own event id of a Worker's point. */
function ownId(point: { readonly blobs?: readonly (string | null | ArrayBuffer)[] }): string {
  const [app, id] = [point.blobs?.[6], point.blobs?.[9]];
  return typeof id === "string" ? appOwnEventId(typeof app === "string" ? app : null, id) : "";
}

/** The Worker's points, once every call's last attempt has one (at most 10 s). */
async function lastAttemptPoints(running: RunningWorker, calls: readonly CallEvent[]) {
  const written = () => {
    const points = running.analyticsPoints();
    // The point keeps the id the Worker sent upstream, `<app>:<id>` (blob7 is the app).
    const seen = new Set(points.map((point) => `${ownId(point)} ${point.doubles?.[8]}`));
    return calls.every((event) => seen.has(`${event.id} ${event.attempts}`)) ? points : null;
  };
  for (let waited = 0; waited < 10_000; waited += 50) {
    const points = written();
    if (points) return points;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the Worker did not write a point for every call's last attempt");
}

/** What the sources must agree on for each call. */
function perCall(calls: readonly CallEvent[]) {
  return Object.fromEntries(
    calls.map((event) => [
      event.id,
      {
        step: event.step,
        ok: event.ok,
        tokensIn: event.tokensIn,
        tokensOut: event.tokensOut,
        cost: event.cost === null ? null : Math.round(event.cost * 1e12) / 1e12,
      },
    ]),
  );
}

describe("one run with client- and gateway-side failovers, reported three ways", () => {
  it("agrees call for call, and per route, from events, gateway logs and Analytics Engine", async () => {
    const byScenario = (name: string) =>
      events.filter((event) => scenarioOf.get(event.id) === name);
    // The client's view, the one truth the other sources must find.
    expect(byScenario("stream cut").map((event) => [event.step, event.attempts])).toEqual([
      [1, 2],
      [1, 2],
    ]);
    for (const name of ["stream stall", "context length", "validate rejection"]) {
      expect(byScenario(name).every((event) => event.step === 1 && event.attempts === 2)).toBe(
        true,
      );
    }
    expect(byScenario("breaker reordered").map((event) => [event.step, event.attempts])).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(byScenario("retry-after exclusion")[0]).toMatchObject({ step: 0, attempts: 2 });
    expect(byScenario("all down").every((event) => event.step === null)).toBe(true);
    expect(byScenario("sdk retry")).toMatchObject([
      { mode: "fetch", step: 0, ok: true, attempts: 2 },
    ]);
    // Streams carried usage: the Worker reads it from the stream as the client does.
    expect(byScenario("stream cut").every((event) => event.tokensIn !== null)).toBe(true);

    const logs = [];
    for await (const event of emulatorLogsSource(
      config.accountId,
      "chat-prod",
      emulator,
    ).events()) {
      logs.push(event);
    }
    // Each call's last attempt has its point (an attempt the client abandoned, such as a stalled
    // stream, is written when the Worker's stream ends, if ever: the last attempt decides).
    const points = await lastAttemptPoints(worker, events);
    expect(points.length).toBeLessThanOrEqual(requests);
    const timeOf = new Map(events.map((event) => [event.id, Date.parse(event.time)]));
    const stamped = points.map((point) => ({
      time: timeOf.get(ownId(point)) ?? Date.now(),
      point: {
        indexes: point.indexes ?? [],
        blobs: (point.blobs ?? []).map((blob) => blob ?? ""),
        doubles: point.doubles ?? [],
      },
    }));
    const { sql, source } = await analyticsEngineOver(config.accountId, stamped);
    try {
      const expected = perCall(events);
      expect(perCall(logs)).toEqual(expected);
      // The cut attempt's tokens were billed: the logs report them apart from the answer's cost.
      const cut = logs.filter((event) => scenarioOf.get(event.id) === "stream cut");
      expect(cut.every((event) => (event.failedAttemptsCost ?? 0) > 0)).toBe(true);
      // The client knows what the stream reported before the cut (Anthropic's prompt tokens, in
      // `message_start`): part of what was billed, never more.
      const cutSeen = byScenario("stream cut");
      const billed = new Map(cut.map((event) => [event.id, event.failedAttemptsCost ?? 0]));
      for (const event of cutSeen) {
        expect(event.failedAttemptsCost).toBeGreaterThan(0);
        expect(event.failedAttemptsCost).toBeLessThanOrEqual(billed.get(event.id)! + 1e-12);
      }
      // A rejected answer came whole: the client's events and the logs agree on what it cost.
      const failedCost = (calls: readonly CallEvent[], name: string) =>
        Object.fromEntries(
          calls
            .filter((event) => scenarioOf.get(event.id) === name)
            .map((event) => [event.id, Math.round((event.failedAttemptsCost ?? -1) * 1e12) / 1e12]),
        );
      const rejectedCost = failedCost(events, "validate rejection");
      expect(Object.values(rejectedCost).every((cost) => cost > 0)).toBe(true);
      expect(failedCost(logs, "validate rejection")).toEqual(rejectedCost);
      // Analytics Engine, call by call: the calls subquery the report's SQL reads from.
      const scope = { dataset: "stepwise_events", window: { since: null, until: null } };
      const response = await sql.fetch(
        `${sql.baseURL}/accounts/${config.accountId}/analytics_engine/sql`,
        {
          method: "POST",
          headers: { authorization: "Bearer analytics-token" },
          body: `SELECT call_blob7 AS app, call_blob10 AS id, call_double1 AS step, call_double4 AS ok, call_double5 AS tokens_in, call_double6 AS tokens_out, call_double7 AS cost FROM (${callsTable(scope)}) FORMAT JSONEachRow`,
        },
      );
      const rows = (await response.text())
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, number | string>);
      const known = (value: number | string) => (Number(value) < 0 ? null : Number(value));
      const fromPoints = Object.fromEntries(
        rows.map((row) => [
          // The point keeps the id the Worker sent upstream, `<app>:<id>`.
          appOwnEventId(String(row.app), String(row.id)),
          {
            step: known(row.step!),
            ok: Number(row.ok) === 1,
            tokensIn: known(row.tokens_in!),
            tokensOut: known(row.tokens_out!),
            cost: known(row.cost!) === null ? null : Math.round(Number(row.cost) * 1e12) / 1e12,
          },
        ]),
      );
      expect(fromPoints).toEqual(expected);

      // Per route (the SDK's provider-native call has no route the gateway could name).
      const route = (report: Report) => perRoute(report, true)["chat-prod/default"];
      const fromEvents = route(await buildReport(memorySource(events)));
      const routeCalls = events.filter((event) => event.route === "default").length;
      expect(fromEvents).toMatchObject({ calls: routeCalls });
      expect(fromEvents?.fallbackRate).toBeGreaterThan(0.4);
      const fromLogs = await buildReport(
        emulatorLogsSource(config.accountId, "chat-prod", emulator),
      );
      expect(route(fromLogs)).toEqual(fromEvents);
      // The cost of fallback (calls served by a later step, and what they cost) is one figure.
      const fallback = (report: Report) =>
        report.explanation?.routes
          .filter((row) => row.key.route === "default")
          .map(({ fallback: { calls, cost } }) => ({
            calls,
            cost: Math.round(cost * 1e12) / 1e12,
          }));
      const eventsReport = await buildReport(memorySource(events));
      expect(fallback(eventsReport)?.[0]?.calls).toBeGreaterThan(0);
      expect(fallback(fromLogs)).toEqual(fallback(eventsReport));
      expect(route(await buildReport(source))).toEqual(fromEvents);
    } finally {
      sql.close();
    }
  }, 60_000);
});
