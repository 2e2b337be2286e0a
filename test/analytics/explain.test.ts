/**
 * The report's explanation on hand-made events whose every figure is known: failure reasons per
 * step (status class, timeout, stream break, refusal, validation, a step the gateway passed over
 * without detail), kept per step whatever `--by` says; and the cost of fallback beside what the
 * same calls' tokens would have cost on the route's primary, priced from a config's `models`.
 */

import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { pricingOf } from "../../src/analytics/explain.ts";
import { failureReasonOf } from "../../src/analytics/failure-reasons.ts";
import { renderCsv } from "../../src/analytics/render/csv.ts";
import { renderJson } from "../../src/analytics/render/json.ts";
import { renderTable } from "../../src/analytics/render/table.ts";
import { buildReport, type ReportOptions } from "../../src/analytics/report.ts";
import type { CallEvent, FailedStep } from "../../src/client/event.ts";

const base: CallEvent = {
  time: "2026-05-01T00:00:00.000Z",
  id: "e",
  gateway: "chat-prod",
  route: "default",
  mode: "universal",
  step: 0,
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  status: 200,
  ok: true,
  cacheStatus: null,
  latencyMs: 10,
  tokensIn: 1_000,
  tokensOut: 100,
  cost: 0.0045,
  errorCode: null,
  logId: null,
  attempts: 1,
  streamed: false,
  metadata: { plan: "pro" },
};

const primary = { step: 0, provider: "anthropic", model: "claude-sonnet-4-5" };
const failed = (overrides: Partial<FailedStep>): FailedStep => ({
  ...primary,
  status: null,
  errorCode: null,
  at: "request",
  ...overrides,
});
/** openai/gpt-4o-mini served: 1,000 in and 100 out at $0.15/$0.60 per million. */
const byFallback = (id: string, failure: FailedStep, minute: number): CallEvent => ({
  ...base,
  id,
  time: `2026-05-01T00:0${minute}:00.000Z`,
  step: 1,
  provider: "openai",
  model: "gpt-4o-mini",
  cost: 0.00021,
  failedSteps: [failure],
  metadata: { plan: minute % 2 === 0 ? "pro" : "free" },
});

const events: CallEvent[] = [
  { ...base, id: "a" },
  byFallback("b", failed({ status: 429, errorCode: "rate_limited" }), 1),
  byFallback("c", failed({ status: 200, errorCode: "incomplete_stream", at: "mid-stream" }), 2),
  byFallback("d", failed({ status: null, errorCode: "timeout" }), 3),
  byFallback("e", failed({ status: 413, errorCode: "api_call_error" }), 4),
  byFallback("f", failed({ status: 200, errorCode: "output_rejected", at: "answer" }), 5),
  byFallback("g", failed({}), 6),
  {
    ...base,
    id: "h",
    time: "2026-05-01T00:07:00.000Z",
    step: null,
    provider: "openai",
    model: "gpt-4o-mini",
    status: 503,
    ok: false,
    tokensIn: null,
    tokensOut: null,
    cost: null,
    errorCode: "all_steps_failed",
    failedSteps: [
      failed({ status: 503, errorCode: "api_call_error" }),
      failed({ step: 1, provider: "openai", model: "gpt-4o-mini", status: 500 }),
    ],
  },
  // A second route, failing without listing its steps (an older client, a dynamic call).
  {
    ...base,
    id: "i",
    route: "fast",
    provider: "groq",
    model: "llama",
    step: null,
    ok: false,
    status: 401,
    errorCode: "api_call_error",
    cost: null,
  },
];

function source(list: readonly CallEvent[]) {
  return {
    kind: "events" as const,
    name: "events.jsonl",
    stats: { records: list.length, malformed: 0, malformedSamples: [] },
    async *events() {
      yield* list;
    },
  };
}

const config = {
  models: {
    "anthropic/claude-sonnet-4-5": { input: 3, output: 15 },
    "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  },
  gateways: [
    {
      id: "chat-prod",
      routes: {
        default: {
          steps: [
            { provider: "anthropic", model: "claude-sonnet-4-5" },
            { provider: "openai", model: "gpt-4o-mini" },
          ],
        },
        fast: { steps: [{ provider: "groq", model: "llama" }] },
      },
    },
  ],
};

const build = (options: ReportOptions = {}) => buildReport(source(events), options);

describe("failure reasons", () => {
  it("classifies each failed step by the first rule that matches", () => {
    const table: Array<[Partial<FailedStep>, string]> = [
      [{ status: 429, errorCode: "api_call_error" }, "rate_limited"],
      [{ status: 401, errorCode: "authentication_failed" }, "client_error"],
      [{ status: 409 }, "client_error"],
      [{ status: 503 }, "server_error"],
      [{ status: 529, errorCode: "api_call_error" }, "server_error"],
      [{ status: 408 }, "timeout"],
      [{ status: 504 }, "timeout"],
      [{ status: null, errorCode: "timeout" }, "timeout"],
      [{ status: 200, errorCode: "incomplete_stream", at: "stream" }, "stream_break"],
      [{ status: 200, errorCode: "incomplete_stream", at: "mid-stream" }, "stream_break"],
      [{ status: 400, errorCode: "api_call_error" }, "refusal"],
      [{ status: 413 }, "refusal"],
      [{ status: 404 }, "refusal"],
      [{ status: 200, errorCode: "output_rejected", at: "answer" }, "validation"],
      [{ status: 200, errorCode: "invalid_response", at: "answer" }, "unreadable"],
      [{ status: 0, errorCode: "network_error" }, "network"],
      [{ status: null, errorCode: null }, "no_detail"],
      [{ status: 200, errorCode: "strange" }, "other"],
    ];
    for (const [step, reason] of table) {
      expect([step, failureReasonOf(failed(step))]).toEqual([step, reason]);
    }
  });
});

describe("the report's explanation", () => {
  it("lists each step of each route with the calls it served and its failures by reason", async () => {
    const report = await build();
    const routes = report.explanation?.routes ?? [];
    expect(routes.map((route) => route.key)).toEqual([
      { gateway: "chat-prod", route: "default" },
      { gateway: "chat-prod", route: "fast" },
    ]);
    const [main, fast] = routes;
    expect(main?.steps).toEqual([
      expect.objectContaining({
        ...primary,
        served: 1,
        share: 1 / 8,
        failed: 7,
        reasons: {
          rate_limited: 1,
          server_error: 1,
          timeout: 1,
          stream_break: 1,
          refusal: 1,
          validation: 1,
          no_detail: 1,
        },
      }),
      expect.objectContaining({
        step: 1,
        provider: "openai",
        served: 6,
        share: 6 / 8,
        failed: 1,
        reasons: { server_error: 1 },
      }),
    ]);
    expect(main?.failed).toBe(8);
    expect(fast?.steps).toEqual([
      expect.objectContaining({
        step: null,
        provider: "groq",
        served: 0,
        failed: 1,
        reasons: { client_error: 1 },
      }),
    ]);
    expect(report.explanation?.totals.reasons).toMatchObject({ client_error: 1, server_error: 2 });
  });

  it("keeps the per-step table when the report groups by metadata", async () => {
    const report = await build({ dimensions: ["metadata.plan"] });
    expect(report.groups.map((row) => row.key)).toEqual([
      { "metadata.plan": "free" },
      { "metadata.plan": "pro" },
    ]);
    const text = renderTable(report);
    expect(text).toContain("Steps per route: calls served and failures by reason");
    const line = text.split("\n").find((row) => row.includes("anthropic/claude-sonnet-4-5"));
    expect(line).toContain("429 rate limited 1");
    expect(line).toContain("no detail 1");
  });

  it("prices the fallback calls' tokens at the primary from the config", async () => {
    const report = await build({ pricing: pricingOf(config) });
    const fallback = report.explanation?.routes[0]?.fallback;
    // Six calls served by openai, each 1,000 tokens in and 100 out.
    const onPrimary = (6 * (1_000 * 3 + 100 * 15)) / 1e6;
    expect(fallback).toMatchObject({
      calls: 6,
      primary: { provider: "anthropic", model: "claude-sonnet-4-5", from: "config" },
      unknownTokens: 0,
    });
    expect(fallback?.cost).toBeCloseTo(6 * 0.00021, 12);
    expect(fallback?.onPrimary).toBeCloseTo(onPrimary, 12);
    expect(fallback?.extra).toBeCloseTo(6 * 0.00021 - onPrimary, 12);
    expect(report.explanation?.totals.fallback.onPrimary).toBeCloseTo(onPrimary, 12);
    const text = renderTable(report);
    expect(text).toContain("Cost of fallback beside the primary");
    expect(text).toContain("-$0.0257");
    const json = JSON.parse(renderJson(report));
    expect(json.explanation.routes[0].fallback.onPrimary).toBeCloseTo(onPrimary, 12);
  });

  it("without a config names the primary the events show and leaves its price unknown", async () => {
    const report = await build();
    expect(report.explanation?.routes[0]?.fallback).toMatchObject({
      calls: 6,
      primary: { provider: "anthropic", model: "claude-sonnet-4-5", from: "events" },
      onPrimary: null,
      extra: null,
    });
    expect(renderTable(report)).toContain("give --config <stack file>");
  });

  it("counts the calls each provider/model served per time bucket, with their cost", async () => {
    const report = await build();
    const series = report.explanation?.routes[0]?.series ?? [];
    expect(series.reduce((sum, point) => sum + point.calls, 0)).toBe(8);
    const served: Record<string, number> = {};
    for (const point of series) {
      for (const [label, calls] of Object.entries(point.served))
        served[label] = (served[label] ?? 0) + calls;
    }
    expect(served).toEqual({ "anthropic/claude-sonnet-4-5": 1, "openai/gpt-4o-mini": 6, none: 1 });
    expect(series.reduce((sum, point) => sum + point.cost, 0)).toBeCloseTo(
      0.0045 + 6 * 0.00021,
      12,
    );
    expect(series[0]?.start).toBe(report.series.points[0]?.start);
  });

  it("writes explain-step and fallback-cost rows in CSV", async () => {
    const report = await build({ dimensions: ["metadata.plan"], pricing: pricingOf(config) });
    const [header = [], ...rows] = parse(renderCsv(report)) as string[][];
    const records = rows.map((row) =>
      Object.fromEntries(header.map((name, index) => [name, row[index]])),
    );
    const primaryRow = records.find(
      (row) => row.scope === "step-outcome" && row.route === "default" && row.step === "0",
    );
    expect(primaryRow).toMatchObject({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      served: "1",
      failed: "7",
      failed_rate_limited: "1",
      failed_stream_break: "1",
      failed_no_detail: "1",
      failed_client_error: "0",
      calls: "",
      "metadata.plan": "",
    });
    const fallback = records.filter((row) => row.scope === "fallback-cost");
    expect(fallback.map((row) => row.route)).toEqual(["default", "fast", ""]);
    expect(fallback[0]).toMatchObject({
      fallback_calls: "6",
      fallback_cost: "0.00126",
      primary: "anthropic/claude-sonnet-4-5",
      cost_on_primary: "0.027",
      fallback_extra_cost: "-0.02574",
    });
  });
});
