/// <reference types="@cloudflare/vitest-pool-workers/types" />
import {
  createExecutionContext,
  createScheduledController,
  reset,
  waitOnExecutionContext,
} from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { accountId, createHarness, gatewayToken, gatewayUrl, testConfig } from "./harness.ts";

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
      { provider: "anthropic", version: null, ageDays: null, flags: ["no-key"] },
      { provider: "google-ai-studio", version: null, ageDays: null, flags: ["no-key"] },
      { provider: "openai", version: rotated.version, ageDays: 81, flags: ["near-max-age"] },
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

describe("scheduled: health probes", () => {
  it("probes each provider through the gateway and serves healthy, degraded and down at GET /health", async () => {
    const harness = createHarness();
    await harness.rotate("anthropic", "sk-ant-health-000001");
    await harness.rotate("openai", "sk-openai-health-0001");
    await harness.rotate("google-ai-studio", "AIza-health-00000001");
    harness.setGateway(async (call) => {
      const [step] = JSON.parse(call.body) as { provider: string }[];
      if (step?.provider === "anthropic") await harness.advance(1500);
      const status = step?.provider === "google-ai-studio" ? 503 : 200;
      return new Response("{}", { status, headers: { "cf-aig-step": "0" } });
    });
    const result = await harness.worker.runScheduled(harness.env);
    expect(
      result.health.map(({ provider, status, httpStatus }) => ({ provider, status, httpStatus })),
    ).toEqual([
      { provider: "anthropic", status: "degraded", httpStatus: 200 },
      { provider: "openai", status: "healthy", httpStatus: 200 },
      { provider: "google-ai-studio", status: "down", httpStatus: 503 },
    ]);
    // google-ai-studio is used by no route in the test config, so it is probed only if a route has it.
    const probe = harness.gatewayCalls.find((call) => call.body.includes('"openai"'))!;
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
    expect(health.json()).toMatchObject({
      probesEnabled: true,
      providers: {
        anthropic: {
          status: "degraded",
          latencyMs: 1500,
          gateway: "chat",
          model: "claude-sonnet-4-5",
        },
        openai: { status: "healthy", latencyMs: 0 },
        "google-ai-studio": { status: "down", httpStatus: 503 },
      },
    });
    expect((await harness.call("GET", "/health", { token: null })).status).toBe(401);
    expect((await harness.call("GET", "/health")).status).toBe(200);
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
    expect(result.health).toEqual([
      expect.objectContaining({
        provider: "openai",
        status: "down",
        httpStatus: 0,
        latencyMs: null,
      }),
    ]);
  });
});
