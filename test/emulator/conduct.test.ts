/**
 * How the emulator spends a request's time (issue: budget conduct): the final attempt waits
 * without a timeout (Cloudflare's documented rule), a timed-out step falls back instead of being
 * retried while a later step can answer, and a 429 is retried no sooner than its Retry-After — or
 * the step gives up at once when that wait is longer than its timeout.
 */
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index.ts";
import {
  emulatorWith,
  openAiCompletion,
  postJson,
  type StubRequest,
  startStub,
  testConfig,
} from "./helpers.ts";

let emulator: Emulator | undefined;
const stubs: Awaited<ReturnType<typeof startStub>>[] = [];
afterEach(async () => {
  await emulator?.close();
  await Promise.all(stubs.splice(0).map((stub) => stub.close()));
  emulator = undefined;
});

/** A first byte later than every step timeout below, yet short for a test (50 ms). */
const slowMs = 50;
const stepTimeoutMs = 5;

function answer(response: ServerResponse, text: string): void {
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(openAiCompletion(text)));
}

/** An upstream whose n-th request (0-based) is answered by `plan[n]` (the last one repeats). */
async function scriptedUpstream(
  plan: ((request: StubRequest, response: ServerResponse) => void)[],
) {
  let count = 0;
  const stub = await startStub((request, response) => {
    const handler = plan[Math.min(count++, plan.length - 1)]!;
    handler(request, response);
  });
  stubs.push(stub);
  return stub;
}

const slow = (_request: StubRequest, response: ServerResponse) => {
  setTimeout(() => answer(response, "slow but complete"), slowMs);
};
const fast = (_request: StubRequest, response: ServerResponse) => answer(response, "fast");

function step(model: string, config: Record<string, unknown> = {}, provider = "openai") {
  return {
    provider,
    endpoint: "chat/completions",
    headers: { authorization: "Bearer sk-test" },
    query: { model, messages: [{ role: "user", content: "hi" }] },
    config,
  };
}

async function start(upstreams: Record<string, string>) {
  const started = await emulatorWith({ config: testConfig(), upstreams });
  emulator = started.emulator;
  return started.clock;
}

describe("budget conduct", () => {
  it("lets the final retry attempt take longer than the step timeout (200, not 504)", async () => {
    const failOnce = (_request: StubRequest, response: ServerResponse) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end('{"error":{"message":"boom","type":"server_error"}}');
    };
    const openai = await scriptedUpstream([failOnce, slow]);
    await start({ openai: openai.url });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("gpt-4o-mini", { requestTimeout: stepTimeoutMs, maxAttempts: 2 }),
    ]);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("slow but complete");
    expect(openai.requests).toHaveLength(2);
  });

  it("keeps the timeout of a request without retries: 504 in time", async () => {
    const openai = await scriptedUpstream([slow]);
    await start({ openai: openai.url });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("gpt-4o-mini", { requestTimeout: stepTimeoutMs }),
    ]);
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error: [{ code: 2011 }] });
  });

  it("falls back at once from a timed-out step instead of retrying it", async () => {
    const openai = await scriptedUpstream([slow]);
    const groq = await scriptedUpstream([fast]);
    const clock = await start({ openai: openai.url, groq: groq.url });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("gpt-4o-mini", { requestTimeout: stepTimeoutMs, maxAttempts: 3, retryDelay: 100 }),
      step("llama-3.1-8b-instant", {}, "groq"),
    ]);
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    await response.text();
    // One attempt on the hung step, no backoff: the log says so (the upstream may not even have
    // read the abandoned request).
    expect(openai.arrived()).toBeLessThanOrEqual(1);
    expect(clock.sleeps).toEqual([]);
    expect(
      emulator!.logs("open").map((log) => [log.step, log.error ?? "ok", log.attempts]),
    ).toEqual([
      [0, "timeout", 1],
      [1, "ok", 1],
    ]);
  });

  it("retries a timed-out last step, its final attempt without a timeout", async () => {
    const openai = await scriptedUpstream([slow]);
    await start({ openai: openai.url });
    const response = await postJson(
      `${emulator!.gatewayUrl("open")}/openai/chat/completions`,
      { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
      {
        authorization: "Bearer sk-test",
        "cf-aig-request-timeout": String(stepTimeoutMs),
        "cf-aig-max-attempts": "2",
      },
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("slow but complete");
    expect(emulator!.logs("open").map((log) => [log.success, log.attempts])).toEqual([[true, 2]]);
  });

  it("waits at least a 429's Retry-After before retrying", async () => {
    const openai = await scriptedUpstream([
      (_request, response) => {
        response.writeHead(429, { "content-type": "application/json", "retry-after": "2" });
        response.end('{"error":{"message":"slow down","type":"rate_limit"}}');
      },
      fast,
    ]);
    const clock = await start({ openai: openai.url });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("gpt-4o-mini", { maxAttempts: 2, retryDelay: 100, requestTimeout: 10_000 }),
    ]);
    expect(response.status).toBe(200);
    await response.text();
    expect(clock.sleeps).toEqual([2000]);
  });

  it("moves on at once when a Retry-After is longer than the step's timeout", async () => {
    const openai = await scriptedUpstream([
      (_request, response) => {
        response.writeHead(429, { "content-type": "application/json", "retry-after": "30" });
        response.end('{"error":{"message":"slow down","type":"rate_limit"}}');
      },
    ]);
    const groq = await scriptedUpstream([fast]);
    const clock = await start({ openai: openai.url, groq: groq.url });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("gpt-4o-mini", { maxAttempts: 3, retryDelay: 100, requestTimeout: 10_000 }),
      step("llama-3.1-8b-instant", {}, "groq"),
    ]);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    await response.text();
    expect(openai.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });
});
