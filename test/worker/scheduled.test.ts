/// <reference types="@cloudflare/vitest-pool-workers/types" />
import {
  createExecutionContext,
  createScheduledController,
  reset,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import {
  accountId,
  createHarness,
  gatewayToken,
  gatewayUrl,
  homeLocation,
  testConfig,
} from "./harness.ts";

afterEach(async () => {
  await reset();
});

const day = 86_400_000;
const noProbes = testConfig({
  worker: { healthProbe: { enabled: false } },
});

describe("scheduled: key age and history", () => {
  it("flags keys near and past the maximum age, and providers with no key", async () => {
    const harness = createHarness({ config: noProbes });
    const rotated = await harness.rotate("openai", "sk-openai-aging-00001");
    await harness.advance(81 * day);
    let result = await harness.worker.runScheduled(harness.env);
    expect(result.keys).toEqual([
      { provider: "anthropic", name: "default", version: null, ageDays: null, flags: ["no-key"] },
      {
        provider: "google-ai-studio",
        name: "default",
        version: null,
        ageDays: null,
        flags: ["no-key"],
      },
      {
        provider: "openai",
        name: "default",
        version: rotated.version,
        ageDays: 81,
        flags: ["near-max-age"],
      },
    ]);
    await harness.advance(9 * day);
    result = await harness.worker.runScheduled(harness.env);
    expect(result.keys.find((entry) => entry.provider === "openai")?.flags).toEqual([
      "past-max-age",
    ]);
    expect(harness.logs).toContain(
      `warn: stepwise worker: openai key needs attention: past-max-age (version ${rotated.version}, 90 days old, max 90); rotate it with \`stepwise rotate openai --key-file <file>\``,
    );
    expect(harness.gatewayCalls).toHaveLength(0);
  });

  it("removes history once the window has passed, by the injected clock", async () => {
    const harness = createHarness({ config: noProbes });
    const first = await harness.rotate("openai", "sk-openai-first-00001");
    await harness.advance(1000);
    const second = await harness.rotate("openai", "sk-openai-second-0002");
    await harness.advance(30 * 60_000);
    let result = await harness.worker.runScheduled(harness.env);
    expect(result.swept.find((entry) => entry.provider === "openai")?.removed).toEqual([]);
    await harness.advance(30 * 60_000);
    result = await harness.worker.runScheduled(harness.env);
    expect(result.swept.find((entry) => entry.provider === "openai")?.removed).toEqual([
      first.version,
    ]);
    const view = (await harness.call("GET", "/keys/openai")).json();
    expect(view.versions.map((version: { version: string }) => version.version)).toEqual([
      second.version,
    ]);
    expect(view.current.version).toBe(second.version);
  });

  it("runs from the cron trigger through scheduled()", async () => {
    const harness = createHarness({ config: noProbes });
    await harness.rotate("openai", "sk-openai-cron-000001");
    const execution = createExecutionContext();
    await harness.worker.scheduled(
      createScheduledController({ cron: "*/15 * * * *", scheduledTime: harness.now() }),
      harness.env,
      execution,
    );
    await waitOnExecutionContext(execution);
    const report = await harness.env.KEYS.get("report:keys", "text");
    expect(JSON.parse(report ?? "{}")).toMatchObject({
      checkedAt: "2026-03-01T12:00:00.000Z",
      keys: expect.arrayContaining([expect.objectContaining({ provider: "openai", flags: [] })]),
    });
  });
});

const openaiAnswer = JSON.stringify({
  choices: [{ index: 0, message: { role: "assistant", content: "pong" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 1, completion_tokens: 1 },
});
const anthropicAnswer = JSON.stringify({
  type: "message",
  role: "assistant",
  content: [{ type: "text", text: "pong" }],
  stop_reason: "end_turn",
  usage: { input_tokens: 1, output_tokens: 1 },
});

describe("scheduled: health probes", () => {
  it("probes each provider/model through the gateway and publishes healthy, degraded and down at GET /health", async () => {
    const harness = createHarness({
      config: testConfig({
        gateways: [
          {
            id: "chat",
            routes: {
              default: [
                { provider: "anthropic", model: "claude-sonnet-4-5" },
                { provider: "openai", model: "gpt-4o-mini" },
              ],
              big: [{ provider: "openai", model: "gpt-4o" }],
              "long-context": [{ provider: "google-ai-studio", model: "gemini-2.5-flash" }],
            },
          },
        ],
      }),
    });
    await harness.rotate("anthropic", "sk-ant-health-000001");
    await harness.rotate("openai", "sk-openai-health-0001");
    await harness.rotate("google-ai-studio", "AIza-health-00000001");
    harness.setGateway(async (call) => {
      const [step] = JSON.parse(call.body) as { provider: string; query: { model?: string } }[];
      if (step?.provider === "anthropic") {
        await harness.advance(1500);
        return new Response(anthropicAnswer, { status: 200, headers: { "cf-aig-step": "0" } });
      }
      if (step?.provider === "google-ai-studio") return new Response("{}", { status: 503 });
      // gpt-4o answers 200 with a body that is not a chat completion.
      const body = step?.query.model === "gpt-4o" ? '{"unexpected":true}' : openaiAnswer;
      return new Response(body, { status: 200, headers: { "cf-aig-step": "0" } });
    });
    const result = await harness.worker.runScheduled(harness.env);
    expect(
      result.health?.models.map(({ provider, model, state, httpStatus }) => ({
        id: `${provider}/${model}`,
        state,
        httpStatus,
      })),
    ).toEqual([
      { id: "anthropic/claude-sonnet-4-5", state: "degraded", httpStatus: 200 },
      { id: "google-ai-studio/gemini-2.5-flash", state: "down", httpStatus: 503 },
      { id: "openai/gpt-4o", state: "degraded", httpStatus: 200 },
      { id: "openai/gpt-4o-mini", state: "healthy", httpStatus: 200 },
    ]);
    const probe = harness.gatewayCalls.find((call) => call.body.includes('"gpt-4o-mini"'))!;
    expect(probe.url).toBe(`${gatewayUrl}/v1/${accountId}/chat`);
    expect(probe.headers["cf-aig-authorization"]).toBe(`Bearer ${gatewayToken}`);
    expect(probe.headers["cf-aig-skip-cache"]).toBe("true");
    const [step] = JSON.parse(probe.body);
    expect(step).toMatchObject({
      provider: "openai",
      endpoint: "chat/completions",
      headers: { authorization: "Bearer sk-openai-health-0001" },
      query: { model: "gpt-4o-mini", max_completion_tokens: 1 },
    });

    const app = await harness.createApp();
    const health = await harness.call("GET", "/health", { token: app.token });
    expect(health.status).toBe(200);
    expect(health.headers.get("cache-control")).toBe("private, max-age=60");
    const document = health.json();
    expect(document).toMatchObject({
      probesEnabled: true,
      probationSeconds: 900,
      providers: {
        anthropic: { state: "degraded", models: ["claude-sonnet-4-5"] },
        openai: { state: "degraded", models: ["gpt-4o", "gpt-4o-mini"] },
        "google-ai-studio": { state: "down" },
      },
    });
    expect(document.models[0]).toMatchObject({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      state: "degraded",
      reason: "slower than slowMs (1500 ≥ 1000 ms)",
      latencyMs: 1500,
      slowMs: 1000,
      probation: null,
    });
    expect(document.models[2]).toMatchObject({ reason: "the answer did not parse" });
    // Cacheable: the same document answers 304 to its ETag.
    const again = await harness.call("GET", "/health", {
      token: app.token,
      headers: { "if-none-match": health.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    expect((await harness.call("GET", "/health", { token: null })).status).toBe(401);
    expect((await harness.call("GET", "/health")).status).toBe(200);
  });

  it("GET /health answers 304 to any matching tag of an If-None-Match list, weak or strong, and to *", async () => {
    const harness = createHarness();
    const app = await harness.createApp();
    const first = await harness.call("GET", "/health", { token: app.token });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{24}"$/);
    for (const header of [`"other", ${etag}`, `W/${etag}`, "*"]) {
      const again = await harness.call("GET", "/health", {
        token: app.token,
        headers: { "if-none-match": header },
      });
      expect(again.status, header).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
    }
    const changed = await harness.call("GET", "/health", {
      token: app.token,
      headers: { "if-none-match": '"0000"' },
    });
    expect(changed.status).toBe(200);
  });

  it("with probes turned off, GET /health says nothing about health, whatever an earlier cron published", async () => {
    const harness = createHarness({ config: noProbes });
    const stale = {
      probesEnabled: true,
      generatedAt: "2026-02-01T00:00:00.000Z",
      probationSeconds: 900,
      models: [{ provider: "openai", model: "gpt-4o-mini", state: "down" }],
      providers: { openai: { state: "down", models: ["gpt-4o-mini"] } },
    };
    await harness.kv.at(homeLocation).put("report:health", JSON.stringify(stale));
    const app = await harness.createApp();
    const health = await harness.call("GET", "/health", { token: app.token });
    expect(health.json()).toEqual({
      probesEnabled: false,
      generatedAt: null,
      probationSeconds: 900,
      models: [],
      providers: {},
    });
  });

  it("is degraded at 3× its usual latency, and a recovered model is on probation", async () => {
    let latency = 100;
    let status = 200;
    const harness = createHarness({
      config: testConfig({
        gateways: [
          { id: "chat", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } },
        ],
        keys: { providers: ["openai"] },
        worker: {
          healthProbe: {
            enabled: true,
            slowMs: 10_000,
            slowMsPerModel: { "openai/gpt-4o-mini": 5_000 },
            probationSeconds: 600,
          },
        },
      }),
    });
    await harness.rotate("openai", "sk-openai-health-0001");
    harness.setGateway(async () => {
      await harness.advance(latency);
      return new Response(openaiAnswer, { status, headers: { "cf-aig-step": "0" } });
    });
    const run = async () => {
      // A cron runs minutes apart (KV takes one write of report:health per second).
      await harness.advance(60_000);
      return (await harness.worker.runScheduled(harness.env)).health!.models[0]!;
    };
    for (let probe = 0; probe < 3; probe++) expect((await run()).state).toBe("healthy");
    latency = 350;
    expect(await run()).toMatchObject({
      state: "degraded",
      reason: "3× slower than usual (350 ms, usually 100 ms)",
      usualLatencyMs: 100,
      slowMs: 5_000,
    });
    latency = 100;
    status = 503;
    const down = await run();
    expect(down).toMatchObject({ state: "down", reason: "answered 503", consecutive: 1 });
    status = 200;
    const recovered = await run();
    expect(recovered.state).toBe("healthy");
    expect(recovered.probation).toEqual({
      startedAt: recovered.checkedAt,
      endsAt: new Date(Date.parse(recovered.checkedAt) + 600_000).toISOString(),
      initialShare: 0.1,
    });
    await harness.advance(600_000);
    expect((await run()).probation).toBeNull();
  });

  it("a probe the gateway refuses itself (its rate limit) leaves the model's health as it was", async () => {
    let gatewayLimited = false;
    const harness = createHarness({
      config: testConfig({
        gateways: [
          { id: "chat", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } },
        ],
        keys: { providers: ["openai"] },
      }),
      gateway: () =>
        gatewayLimited
          ? new Response(
              '{"success":false,"error":[{"code":2003,"message":"Rate limited"}],"name":"AiGatewayError","httpCode":429}',
              { status: 429, headers: { "content-type": "application/json" } },
            )
          : new Response(openaiAnswer, { status: 200, headers: { "cf-aig-step": "0" } }),
    });
    await harness.rotate("openai", "sk-openai-health-0001");
    const healthy = (await harness.worker.runScheduled(harness.env)).health!.models[0]!;
    expect(healthy.state).toBe("healthy");
    gatewayLimited = true;
    await harness.advance(60_000);
    const after = (await harness.worker.runScheduled(harness.env)).health!.models;
    expect(after).toEqual([healthy]);
    expect(harness.logs.some((line) => line.includes("the gateway refused the health probe"))).toBe(
      true,
    );
  });

  it("reports an unreachable gateway as down", async () => {
    const harness = createHarness({
      config: testConfig({
        gateways: [
          { id: "chat", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } },
        ],
        keys: { providers: ["openai"] },
      }),
      gateway: () => {
        throw new TypeError("network down");
      },
    });
    await harness.rotate("openai", "sk-openai-health-0001");
    const result = await harness.worker.runScheduled(harness.env);
    expect(result.health?.models).toEqual([
      expect.objectContaining({
        provider: "openai",
        state: "down",
        httpStatus: 0,
        latencyMs: null,
      }),
    ]);
  });
});
