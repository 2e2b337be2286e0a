import { describe, expect, it } from "vitest";
import {
  type BreakerOptions,
  type BreakerTransition,
  createCircuitBreaker,
  windowBucketCount,
} from "../../src/client/breaker.ts";
import { createTestServer, type TestResponse } from "../helpers/test-server.ts";
import {
  fixtureJson,
  gatewayUrl,
  ManualClock,
  messages,
  servedHeaders,
  testClient,
} from "./helpers.ts";

function breakerWithClock(options: BreakerOptions = {}) {
  const clock = new ManualClock();
  const transitions: BreakerTransition[] = [];
  const breaker = createCircuitBreaker({ ...options, now: clock.now });
  breaker.subscribe((transition) => transitions.push(transition));
  const summary = () =>
    transitions.map(({ provider, from, to, reason }) => `${provider}: ${from}→${to} (${reason})`);
  return { breaker, clock, transitions, summary };
}

describe("CircuitBreaker", () => {
  it("opens after N consecutive failures; a success resets the count", () => {
    const { breaker, summary } = breakerWithClock({ failureThreshold: 3 });
    breaker.recordOutcome("openai", "gpt-4o-mini", false);
    breaker.recordOutcome("openai", "gpt-4o-mini", false);
    breaker.recordOutcome("openai", "gpt-4o-mini", true);
    breaker.recordOutcome("openai", "gpt-4o-mini", false);
    breaker.recordOutcome("openai", "gpt-4o-mini", false);
    expect(breaker.state("openai", "gpt-4o-mini")).toBe("closed");
    breaker.recordOutcome("openai", "gpt-4o-mini", false);
    expect(breaker.state("openai", "gpt-4o-mini")).toBe("open");
    expect(summary()).toStrictEqual(["openai: closed→open (consecutive_failures)"]);
  });

  it("opens when the failure rate over the window reaches the threshold, with enough calls", () => {
    const { breaker, transitions } = breakerWithClock({
      failureThreshold: 100,
      failureRateThreshold: 0.5,
      minimumCalls: 6,
    });
    for (const ok of [true, false, true, false, true])
      breaker.recordOutcome("groq", "llama-3.1-8b-instant", ok);
    expect(breaker.state("groq", "llama-3.1-8b-instant")).toBe("closed"); // 2/5 failed, and only 5 calls
    breaker.recordOutcome("groq", "llama-3.1-8b-instant", false); // 3/6 = 0.5
    expect(breaker.state("groq", "llama-3.1-8b-instant")).toBe("open");
    expect(transitions[0]).toMatchObject({ reason: "failure_rate", failureRate: 0.5 });
  });

  it("forgets outcomes older than the window", () => {
    const { breaker, clock } = breakerWithClock({
      failureThreshold: 100,
      minimumCalls: 4,
      windowMs: 10_000,
    });
    breaker.recordOutcome("groq", "llama-3.1-8b-instant", false);
    breaker.recordOutcome("groq", "llama-3.1-8b-instant", false);
    breaker.recordOutcome("groq", "llama-3.1-8b-instant", false);
    clock.advance(10_001);
    breaker.recordOutcome("groq", "llama-3.1-8b-instant", true);
    breaker.recordOutcome("groq", "llama-3.1-8b-instant", false);
    expect(breaker.health()["groq/llama-3.1-8b-instant"]).toMatchObject({
      windowCalls: 2,
      failureRate: null,
    });
    expect(breaker.state("groq", "llama-3.1-8b-instant")).toBe("closed");
  });

  it("keeps a constant number of buckets per provider, whatever the call rate", () => {
    const windowMs = 60_000;
    const { breaker, clock } = breakerWithClock({ failureThreshold: 100_000, windowMs });
    const stepMs = 7;
    let failures = 0;
    let stored = 0;
    for (let call = 0; call < 100_000; call++) {
      const ok = call % 4 !== 0; // a quarter fail, never enough to open
      if (!ok) failures++;
      breaker.recordOutcome("openai", "gpt-4o-mini", ok);
      stored = Math.max(stored, breaker.storedBuckets("openai", "gpt-4o-mini"));
      clock.advance(stepMs);
    }
    expect(stored).toBe(windowBucketCount);
    expect(failures).toBe(25_000);
    const health = breaker.health()["openai/gpt-4o-mini"]!;
    expect(health.state).toBe("closed");
    // The window slides one bucket at a time: it holds between windowMs − one bucket and
    // windowMs of outcomes, never the 100 000 recorded.
    const bucketMs = windowMs / windowBucketCount;
    expect(health.windowCalls).toBeGreaterThanOrEqual(Math.floor((windowMs - bucketMs) / stepMs));
    expect(health.windowCalls).toBeLessThanOrEqual(Math.ceil(windowMs / stepMs));
    expect(health.failureRate).toBeCloseTo(0.25, 2);
  });

  it("goes half-open after the cooldown and admits exactly one probe at a time", () => {
    const { breaker, clock, summary } = breakerWithClock({
      failureThreshold: 1,
      cooldownMs: 30_000,
    });
    breaker.recordOutcome("anthropic", "claude-sonnet-4-5", false);
    expect(breaker.admit("anthropic", "claude-sonnet-4-5")).toStrictEqual({ kind: "open" });
    clock.advance(29_999);
    expect(breaker.admit("anthropic", "claude-sonnet-4-5")).toStrictEqual({ kind: "open" });
    clock.advance(1);
    const probe = breaker.admit("anthropic", "claude-sonnet-4-5");
    expect(probe.kind).toBe("probe");
    expect(breaker.admit("anthropic", "claude-sonnet-4-5")).toStrictEqual({ kind: "open" });
    expect(breaker.health()["anthropic/claude-sonnet-4-5"]).toMatchObject({
      state: "half-open",
      probeInFlight: true,
    });
    expect(summary()).toStrictEqual([
      "anthropic: closed→open (consecutive_failures)",
      "anthropic: open→half-open (cooldown_elapsed)",
    ]);
  });

  it("closes when the probe succeeds; ignores outcomes of calls that were not the probe", () => {
    const { breaker, clock, summary } = breakerWithClock({
      failureThreshold: 1,
      cooldownMs: 1_000,
    });
    breaker.recordOutcome("anthropic", "claude-sonnet-4-5", false);
    clock.advance(1_000);
    const probe = breaker.admit("anthropic", "claude-sonnet-4-5");
    if (probe.kind !== "probe") throw new Error("expected a probe");
    breaker.recordOutcome("anthropic", "claude-sonnet-4-5", false); // a call that was not the probe
    expect(breaker.state("anthropic", "claude-sonnet-4-5")).toBe("half-open");
    breaker.recordOutcome("anthropic", "claude-sonnet-4-5", true, probe.token);
    expect(breaker.state("anthropic", "claude-sonnet-4-5")).toBe("closed");
    expect(summary().at(-1)).toBe("anthropic: half-open→closed (probe_succeeded)");
  });

  it("reopens when the probe fails, for twice the last cooldown, up to the cap", () => {
    const { breaker, clock, transitions } = breakerWithClock({
      failureThreshold: 1,
      cooldownMs: 1_000,
      maxCooldownMs: 3_000,
    });
    const failProbe = () => {
      const probe = breaker.admit("anthropic", "claude-sonnet-4-5");
      if (probe.kind !== "probe") throw new Error("expected a probe");
      breaker.recordOutcome("anthropic", "claude-sonnet-4-5", false, probe.token);
    };
    breaker.recordOutcome("anthropic", "claude-sonnet-4-5", false);
    const cooldowns = [];
    for (let probe = 0; probe < 4; probe++) {
      const cooldown = breaker.health()["anthropic/claude-sonnet-4-5"]!.cooldownMs;
      cooldowns.push(cooldown);
      clock.advance(cooldown - 1);
      expect(breaker.state("anthropic", "claude-sonnet-4-5")).toBe("open");
      clock.advance(1);
      failProbe();
    }
    expect(cooldowns).toStrictEqual([1_000, 2_000, 3_000, 3_000]);
    expect(transitions.at(-1)).toMatchObject({
      to: "open",
      reason: "probe_failed",
      cooldownMs: 3_000,
    });
  });

  it("starts again from the first cooldown once a probe succeeded", () => {
    const { breaker, clock } = breakerWithClock({ failureThreshold: 1, cooldownMs: 1_000 });
    const probeAfter = (ms: number, ok: boolean) => {
      clock.advance(ms);
      const probe = breaker.admit("anthropic", "claude-sonnet-4-5");
      if (probe.kind !== "probe") throw new Error("expected a probe");
      breaker.recordOutcome("anthropic", "claude-sonnet-4-5", ok, probe.token);
    };
    breaker.recordOutcome("anthropic", "claude-sonnet-4-5", false);
    probeAfter(1_000, false);
    probeAfter(2_000, true);
    expect(breaker.state("anthropic", "claude-sonnet-4-5")).toBe("closed");
    breaker.recordOutcome("anthropic", "claude-sonnet-4-5", false);
    expect(breaker.health()["anthropic/claude-sonnet-4-5"]).toMatchObject({
      state: "open",
      cooldownMs: 1_000,
    });
  });

  it("keeps one circuit per provider and model", () => {
    const { breaker } = breakerWithClock({ failureThreshold: 2 });
    breaker.recordOutcome("openai", "gpt-4o", false);
    breaker.recordOutcome("openai", "gpt-4o", false);
    expect(breaker.state("openai", "gpt-4o")).toBe("open");
    expect(breaker.state("openai", "gpt-4o-mini")).toBe("closed");
    expect(Object.keys(breaker.health())).toStrictEqual(["openai/gpt-4o", "openai/gpt-4o-mini"]);
  });

  it("names each setting out of range", () => {
    expect(() =>
      createCircuitBreaker({ failureRateThreshold: 2, cooldownMs: 0, whenOpen: "skip" as "drop" }),
    ).toThrow(
      /failureRateThreshold must be above 0 and at most 1, got 2.*cooldownMs must be a positive whole number, got 0.*whenOpen/,
    );
  });

  it("frees a probe that told nothing, so the next call can probe", () => {
    const { breaker, clock } = breakerWithClock({ failureThreshold: 1, cooldownMs: 1_000 });
    breaker.recordOutcome("anthropic", "claude-sonnet-4-5", false);
    clock.advance(1_000);
    const first = breaker.admit("anthropic", "claude-sonnet-4-5");
    if (first.kind !== "probe") throw new Error("expected a probe");
    breaker.releaseProbe("anthropic", "claude-sonnet-4-5", first.token);
    const second = breaker.admit("anthropic", "claude-sonnet-4-5");
    expect(second.kind).toBe("probe");
    breaker.releaseProbe("anthropic", "claude-sonnet-4-5", first.token); // a stale release changes nothing
    expect(breaker.admit("anthropic", "claude-sonnet-4-5")).toStrictEqual({ kind: "open" });
  });
});

const anthropicDown: TestResponse = {
  type: "json",
  body: fixtureJson("providers/openai/response.json"),
  headers: servedHeaders(1, "openai", "gpt-4o-mini"),
};

const server = createTestServer({ [gatewayUrl]: { response: anthropicDown } });

function sentProviders(callIndex: number): string[] {
  return (server.calls[callIndex]!.body as { provider: string }[]).map((step) => step.provider);
}

describe("the client's breaker", () => {
  const breaker = { failureThreshold: 2, cooldownMs: 10_000 };

  it("counts steps the gateway passed over as failures and moves an open provider to the end", async () => {
    const { client, recorder, breaker: circuits } = testClient({}, breaker);
    await client.chat({ route: "default", messages });
    await client.chat({ route: "default", messages });
    expect(circuits!.health()["anthropic/claude-sonnet-4-5"]).toMatchObject({
      state: "open",
      consecutiveFailures: 2,
    });
    expect(recorder.transitions.map(({ provider, to }) => `${provider}→${to}`)).toStrictEqual([
      "anthropic→open",
    ]);

    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/openai/response.json"),
      headers: servedHeaders(0, "openai", "gpt-4o-mini"),
    };
    const answer = await client.chat({ route: "default", messages });
    expect(sentProviders(2)).toStrictEqual(["openai", "workers-ai", "anthropic"]);
    expect(answer.served).toMatchObject({ index: 1, provider: "openai" });
    expect(recorder.events.map((event) => event.step)).toStrictEqual([1, 1, 1]);
  });

  it("drops an open provider when whenOpen is drop", async () => {
    const { client } = testClient({}, { ...breaker, whenOpen: "drop" });
    await client.chat({ route: "default", messages });
    await client.chat({ route: "default", messages });
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/openai/response.json"),
      headers: servedHeaders(0, "openai", "gpt-4o-mini"),
    };
    await client.chat({ route: "default", messages });
    expect(sentProviders(2)).toStrictEqual(["openai", "workers-ai"]);
  });

  it("probes in place after the cooldown, and closes when the provider answers", async () => {
    const { client, clock, recorder, breaker: circuits } = testClient({}, breaker);
    await client.chat({ route: "default", messages });
    await client.chat({ route: "default", messages });
    clock.advance(10_000);
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/anthropic/response.json"),
      headers: servedHeaders(0, "anthropic", "claude-sonnet-4-5"),
    };
    const answer = await client.chat({ route: "default", messages });
    expect(sentProviders(2)).toStrictEqual(["anthropic", "openai", "workers-ai"]);
    expect(answer.served.provider).toBe("anthropic");
    expect(circuits!.state("anthropic", "claude-sonnet-4-5")).toBe("closed");
    expect(recorder.transitions.map(({ to, reason }) => `${to} (${reason})`)).toStrictEqual([
      "open (consecutive_failures)",
      "half-open (cooldown_elapsed)",
      "closed (probe_succeeded)",
    ]);
  });

  it("lets only one concurrent call probe; the others keep the provider at the end", async () => {
    const { client, clock, breaker: circuits } = testClient({}, breaker);
    await client.chat({ route: "default", messages });
    await client.chat({ route: "default", messages });
    clock.advance(10_000);
    await Promise.all([
      client.chat({ route: "default", messages }),
      client.chat({ route: "default", messages }),
    ]);
    const chains = [sentProviders(2), sentProviders(3)].map((chain) => chain.join(","));
    expect(chains.sort()).toStrictEqual([
      "anthropic,openai,workers-ai",
      "openai,workers-ai,anthropic",
    ]);
    expect(circuits!.state("anthropic", "claude-sonnet-4-5")).toBe("open");
  });

  it("does not count cache hits or gateway errors against providers", async () => {
    const { client, breaker: circuits } = testClient({}, { failureThreshold: 1 });
    server.urls[gatewayUrl]!.response = {
      type: "json",
      body: fixtureJson("providers/openai/response.json"),
      headers: servedHeaders(1, "openai", "gpt-4o-mini", { "cf-aig-cache-status": "HIT" }),
    };
    await client.chat({ route: "default", messages });
    server.urls[gatewayUrl]!.response = {
      type: "error",
      status: 401,
      body: fixtureJson("client/gateway-error-401.json"),
    };
    await client.chat({ route: "default", messages }).catch(() => undefined);
    // The breaker saw circuits only through calls, and none of them was ever opened.
    const health = circuits!.health();
    expect(Object.values(health).map((entry) => entry.state)).toStrictEqual(
      Object.keys(health).map(() => "closed"),
    );
    expect(circuits!.health()["anthropic/claude-sonnet-4-5"]?.consecutiveFailures ?? 0).toBe(0);
  });

  it("is not there unless the client is given one", async () => {
    const { client, recorder } = testClient();
    for (let call = 0; call < 6; call++) await client.chat({ route: "default", messages });
    expect(sentProviders(5)).toStrictEqual(["anthropic", "openai", "workers-ai"]);
    expect(recorder.transitions).toStrictEqual([]);
  });
});
