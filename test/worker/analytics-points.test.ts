/// <reference types="@cloudflare/vitest-pool-workers/types" />
/**
 * The Analytics Engine points the proxy writes are read back by the report's own decoder
 * (`decodeCallRow`, the one schema): ten good calls read as ten successes, with the route the
 * client named, the step, provider and model that served, tokens and cost.
 */
import { describe, expect, it } from "vitest";
import { type CallPointRow, decodeCallRow } from "../../src/worker/analytics-row.ts";
import { metadataColumns } from "../../src/worker/analytics-schema.ts";
import type { AnalyticsDataPoint } from "../../src/worker/index.ts";
import { accountId, createHarness, defaultGateway, testConfig } from "./harness.ts";

/** A point as the SQL API returns its row. */
function rowOf(point: AnalyticsDataPoint, timestamp: string): CallPointRow {
  const row: Record<string, unknown> = { timestamp, index1: point.indexes?.[0] ?? "" };
  (point.blobs ?? []).forEach((blob, index) => {
    row[`blob${index + 1}`] = blob ?? "";
  });
  (point.doubles ?? []).forEach((double, index) => {
    row[`double${index + 1}`] = double;
  });
  return row;
}

const config = testConfig({
  models: { "openai/gpt-4o-mini": { input: 0.15, output: 0.6 } },
});

const usageBody = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
});

describe("Analytics Engine points", () => {
  it("ten good calls decode as ten successes with route, step, provider, model, tokens and cost", async () => {
    const harness = createHarness({ config });
    await harness.rotate("openai", "sk-openai-points-000001");
    harness.acceptKeys("openai", "sk-openai-points-000001");
    const app = await harness.createApp();
    await harness.advance(2_000);
    harness.setGateway(async (call, valid) => {
      const answer = await defaultGateway(call, valid);
      const text = answer.status === 200 ? usageBody : await answer.text();
      const headers = new Headers(answer.headers);
      headers.set("content-length", String(new TextEncoder().encode(text).byteLength));
      return new Response(text, { status: answer.status, headers });
    });
    const steps = ["anthropic", "openai"].map((provider) => ({
      provider,
      endpoint: "chat/completions",
      query: { model: provider === "openai" ? "gpt-4o-mini" : "claude-sonnet-4-5", messages: [] },
    }));
    for (let index = 0; index < 10; index++) {
      const response = await harness.call("POST", `/v1/${accountId}/chat`, {
        token: app.token,
        body: steps,
        headers: {
          "cf-aig-metadata": JSON.stringify({ route: "default", team: "checkout" }),
          "cf-aig-event-id": `event-${index}`,
        },
      });
      expect(response.status).toBe(200);
    }
    expect(harness.events).toHaveLength(10);
    const decoded = harness.events.map((point) =>
      decodeCallRow(rowOf(point, "2026-03-01 12:00:02")),
    );
    for (const [index, row] of decoded.entries()) {
      expect(row.ok).toBe(true);
      if (!row.ok) continue;
      expect(row.point).toMatchObject({
        gateway: "chat",
        route: "default",
        mode: "universal",
        step: 1,
        provider: "openai",
        model: "gpt-4o-mini",
        status: 200,
        ok: true,
        errorCode: null,
        // Upstream and here the id is the app's (app-scope.ts); the app got `event-${index}` back.
        eventId: `${app.id}:event-${index}`,
        app: app.id,
        keySource: "current",
        tokensIn: 1000,
        tokensOut: 500,
        metadata: { app: app.id, route: "default", team: "checkout" },
      });
      expect(row.point.cost).toBeCloseTo(0.00045, 10);
    }
    // The app is in its own blob (blob7) only, not repeated among the metadata blobs; the
    // reader gives it back as the `app` entry the gateway's logs carry.
    for (const point of harness.events) {
      expect(point.blobs?.[6]).toBe(app.id);
      expect(point.blobs?.slice(10)).toEqual(["route=default", "team=checkout"]);
    }
    expect(JSON.stringify(harness.events)).not.toContain("sk-openai-points");
    expect(metadataColumns).toHaveLength(5);
  });

  it("a call no step served is a failure with no step, naming the last provider tried", async () => {
    const harness = createHarness();
    await harness.rotate("openai", "sk-openai-points-000002");
    const app = await harness.createApp();
    await harness.advance(2_000);
    await harness.call("POST", `/v1/${accountId}/chat`, {
      token: app.token,
      body: [{ provider: "openai", endpoint: "chat/completions", query: { model: "gpt-4o-mini" } }],
      headers: { "cf-aig-metadata": '{"route":"default"}' },
    });
    const row = decodeCallRow(rowOf(harness.events[0]!, "2026-03-01 12:00:02"));
    expect(row.ok && row.point).toMatchObject({
      route: "default",
      ok: false,
      step: null,
      provider: "openai",
      model: "gpt-4o-mini",
      status: 401,
      errorCode: "http_401",
    });
  });
});
