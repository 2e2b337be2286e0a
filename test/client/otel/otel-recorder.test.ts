/**
 * The OpenTelemetry recorder on real calls: the real client calls the real emulator, whose
 * anthropic is overloaded so the gateway falls back to openai, and `otelRecorder` hands its span
 * and metrics to the SDK's in-memory exporters. The names are the GenAI semantic conventions'
 * (v1.37+: "gen_ai.provider.name … The Generative AI provider as identified by the client or
 * server instrumentation", "gen_ai.client.token.usage … Measures number of input and output tokens
 * used") plus Stepwise's own. Without `@opentelemetry/api` it records nothing and still forwards.
 */

import path from "node:path";
import * as api from "@opentelemetry/api";
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallEvent } from "../../../src/client/event.ts";
import { createGatewayClient, memoryRecorder } from "../../../src/client/index.ts";
import { otelRecorder, providerNameOf } from "../../../src/client/otel/index.ts";
import { loadConfig, type StepwiseConfig } from "../../../src/config/index.ts";
import { type Emulator, startEmulator } from "../../../src/emulator/index.ts";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(spans)],
});
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });
const events = memoryRecorder();
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
    prices: config.models,
    recorder: otelRecorder({
      tracer: tracerProvider.getTracer("test"),
      meter: meterProvider.getMeter("test"),
      next: events,
    }),
  });
  const ask = (index: number) =>
    client.chat({ route: "default", messages: [{ role: "user", content: `Question ${index}` }] });
  await ask(0);
  emulator.mocks!.setFaults({ rules: [{ provider: "anthropic", kind: "overloaded" }] });
  await ask(1);
  await ask(2);
  emulator.mocks!.setFaults({ rules: [] });
}, 60_000);

afterAll(async () => {
  await emulator?.close();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
});

describe("otelRecorder", () => {
  it("emits one CLIENT span per call with the GenAI and Stepwise attributes", () => {
    expect(events.events).toHaveLength(3);
    const finished = spans.getFinishedSpans();
    expect(finished).toHaveLength(3);
    const [first, fallback] = finished;
    const [firstEvent, fallbackEvent] = events.events as [CallEvent, CallEvent];
    expect(first?.name).toBe("chat claude-sonnet-4-5");
    expect(first?.kind).toBe(api.SpanKind.CLIENT);
    expect(first?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "gen_ai.response.model": "claude-sonnet-4-5",
      "gen_ai.usage.input_tokens": firstEvent.tokensIn,
      "gen_ai.usage.output_tokens": firstEvent.tokensOut,
      "stepwise.gateway": "chat-prod",
      "stepwise.route": "default",
      "stepwise.served_step": 0,
      "stepwise.fallback": false,
      "stepwise.failed_steps": 0,
      "stepwise.attempts": 1,
    });
    expect(first?.attributes["gen_ai.system"]).toBeUndefined();
    // Timed from the event: its start and its whole latency.
    const startMs = (first?.startTime[0] ?? 0) * 1000 + (first?.startTime[1] ?? 0) / 1e6;
    expect(startMs).toBeCloseTo(Date.parse(firstEvent.time), 0);
    const durationMs = (first?.duration[0] ?? 0) * 1000 + (first?.duration[1] ?? 0) / 1e6;
    expect(durationMs).toBeCloseTo(firstEvent.latencyMs, 0);

    expect(fallbackEvent).toMatchObject({ step: 1, provider: "openai" });
    expect(fallback?.name).toBe("chat claude-sonnet-4-5");
    expect(fallback?.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "gen_ai.response.model": "gpt-4o-mini",
      "stepwise.served_step": 1,
      "stepwise.fallback": true,
      "stepwise.failed_steps": 1,
    });
    expect(fallback?.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        "stepwise.step_failed",
        {
          "stepwise.step": 0,
          "gen_ai.provider.name": "anthropic",
          "gen_ai.request.model": "claude-sonnet-4-5",
          "stepwise.at": "request",
        },
      ],
    ]);
    expect(fallback?.status.code).toBe(api.SpanStatusCode.UNSET);
  });

  it("counts calls per served step, tokens, duration, cost and failed steps as metrics", async () => {
    await reader.forceFlush();
    const metrics = metricExporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap((scope) => scope.metrics);
    const byName = new Map(metrics?.map((metric) => [metric.descriptor.name, metric]));
    expect([...byName.keys()].sort()).toEqual([
      "gen_ai.client.operation.duration",
      "gen_ai.client.token.usage",
      "stepwise.calls",
      "stepwise.cost",
      "stepwise.failed_steps",
    ]);
    const calls = byName.get("stepwise.calls");
    expect(calls?.descriptor.unit).toBe("{call}");
    const perStep = Object.fromEntries(
      (calls?.dataPoints ?? []).map((point) => [
        point.attributes["stepwise.served_step"],
        point.value,
      ]),
    );
    expect(perStep).toEqual({ "0": 1, "1": 2 });
    const tokens = byName.get("gen_ai.client.token.usage");
    expect(tokens?.dataPointType).toBe(DataPointType.HISTOGRAM);
    expect(tokens?.descriptor.unit).toBe("{token}");
    const tokenTypes = new Set(
      tokens?.dataPoints.map((point) => point.attributes["gen_ai.token.type"]),
    );
    expect(tokenTypes).toEqual(new Set(["input", "output"]));
    const inputSum = (tokens?.dataPoints ?? [])
      .filter((point) => point.attributes["gen_ai.token.type"] === "input")
      .reduce((sum, point) => sum + ((point.value as { sum?: number }).sum ?? 0), 0);
    expect(inputSum).toBe(events.events.reduce((sum, event) => sum + (event.tokensIn ?? 0), 0));
    const duration = byName.get("gen_ai.client.operation.duration");
    expect(duration?.descriptor.unit).toBe("s");
    const count = (duration?.dataPoints ?? []).reduce(
      (sum, point) => sum + ((point.value as { count: number }).count ?? 0),
      0,
    );
    expect(count).toBe(3);
    const failed = byName.get("stepwise.failed_steps");
    expect(failed?.dataPoints.map((point) => [point.attributes, point.value])).toEqual([
      [
        {
          "stepwise.gateway": "chat-prod",
          "stepwise.route": "default",
          "stepwise.step": 0,
          "gen_ai.provider.name": "anthropic",
          "stepwise.status": "none",
        },
        2,
      ],
    ]);
    const cost = byName.get("stepwise.cost");
    const costSum = (cost?.dataPoints ?? []).reduce(
      (sum, point) => sum + (point.value as number),
      0,
    );
    expect(costSum).toBeGreaterThan(0);
    expect(costSum).toBeCloseTo(
      events.events.reduce((sum, event) => sum + (event.cost ?? 0), 0),
      12,
    );
  });

  it("records nothing without @opentelemetry/api, and still forwards every event", async () => {
    const forwarded = memoryRecorder();
    const before = spans.getFinishedSpans().length;
    for (const loadApi of [
      async () => undefined,
      async () => Promise.reject(new Error("absent")),
    ]) {
      const recorder = otelRecorder({
        tracer: tracerProvider.getTracer("test"),
        loadApi,
        next: forwarded,
      });
      await recorder.record(events.events[0] as CallEvent);
    }
    expect(forwarded.events).toHaveLength(2);
    expect(spans.getFinishedSpans()).toHaveLength(before);
  });

  it("uses the global providers by default, and the conventions' provider names", async () => {
    const local = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(local)] });
    api.trace.setGlobalTracerProvider(provider);
    try {
      const recorder = otelRecorder({ legacySystemAttribute: true });
      await recorder.record({
        ...(events.events[0] as CallEvent),
        provider: "google-ai-studio",
        model: "gemini-2.5-flash",
        ok: false,
        status: 503,
        step: null,
        errorCode: "all_steps_failed",
      });
      const [span] = local.getFinishedSpans();
      expect(span?.attributes).toMatchObject({
        "gen_ai.provider.name": "gcp.gemini",
        "gen_ai.system": "gcp.gemini",
        "error.type": "all_steps_failed",
      });
      expect(span?.attributes["stepwise.served_step"]).toBeUndefined();
      expect(span?.status.code).toBe(api.SpanStatusCode.ERROR);
    } finally {
      api.trace.disable();
      await provider.shutdown();
    }
    expect(
      [
        "openai",
        "anthropic",
        "workers-ai",
        "google-ai-studio",
        "groq",
        "mistral",
        "deepseek",
        "grok",
      ].map(providerNameOf),
    ).toEqual([
      "openai",
      "anthropic",
      "workers-ai",
      "gcp.gemini",
      "groq",
      "mistral_ai",
      "deepseek",
      "x_ai",
    ]);
  });
});
