/**
 * How the emulator spends a request's time (budget conduct): the final retry attempt waits
 * without a timeout (Cloudflare's documented rule) while a request without retries keeps its
 * timeout, a timed-out step falls back instead of being retried while a later step can answer, and
 * a 429 is retried no sooner than its Retry-After — or the step gives up at once when that wait is
 * longer than its timeout.
 *
 * Upstreams are an injected `fetch` whose answers are scripted per call: a hung upstream never
 * answers until the emulator aborts it, so no test depends on how fast this machine is.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Emulator } from "../../../src/emulator/index.ts";
import { emulatorWith, openAiCompletion, postJson, testConfig } from "../helpers.ts";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

type Answer = (signal: AbortSignal) => Promise<Response>;

const ok: Answer = async () => Response.json(openAiCompletion("answered"));
const status =
  (code: number, headers: Record<string, string> = {}): Answer =>
  async () =>
    Response.json(
      { error: { message: `status ${code}`, type: "server_error" } },
      {
        status: code,
        headers,
      },
    );
/** Never answers; fails when the emulator gives up on it. */
const hang: Answer = (signal) =>
  new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
/** Answers after the request's timeout would have fired (the clock of the attempt is real). */
const late: Answer = () =>
  new Promise((resolve) => setTimeout(() => resolve(Response.json(openAiCompletion("late"))), 30));

/** A fetch answering each provider's n-th call with its n-th scripted answer (the last repeats). */
function scriptedFetch(script: Record<string, Answer[]>) {
  const calls: string[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const host = new URL(String(input)).hostname;
    const provider = host.split(".")[0]!;
    const answers = script[provider] ?? [status(404)];
    const index = calls.filter((call) => call === provider).length;
    calls.push(provider);
    return answers[Math.min(index, answers.length - 1)]!(
      init?.signal ?? new AbortController().signal,
    );
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

async function start(script: Record<string, Answer[]>) {
  const upstream = scriptedFetch(script);
  const started = await emulatorWith({
    config: testConfig(),
    mocks: false,
    fetch: upstream.fetch,
    upstreams: { openai: "http://openai.test/", groq: "http://groq.test/" },
  });
  emulator = started.emulator;
  return { clock: started.clock, calls: upstream.calls };
}

/** A universal step; `config` as Cloudflare's step config (requestTimeout, maxAttempts...). */
function step(provider: string, config: Record<string, unknown> = {}) {
  return {
    provider,
    endpoint: "chat/completions",
    headers: { authorization: "Bearer sk-test" },
    query: { model: "m", messages: [{ role: "user", content: "hi" }] },
    config,
  };
}

const stepTimeoutMs = 5;

describe("budget conduct", () => {
  it("lets the final retry attempt take longer than the step timeout (200, not 504)", async () => {
    const { calls } = await start({ openai: [status(500), late] });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("openai", { requestTimeout: stepTimeoutMs, maxAttempts: 2 }),
    ]);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("late");
    expect(calls).toEqual(["openai", "openai"]);
  });

  it("keeps the timeout of a request without retries: 504 in time", async () => {
    await start({ openai: [hang] });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("openai", { requestTimeout: stepTimeoutMs }),
    ]);
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error: [{ code: 2011 }] });
  });

  it("falls back at once from a timed-out step instead of retrying it", async () => {
    const { clock, calls } = await start({ openai: [hang], groq: [ok] });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("openai", { requestTimeout: stepTimeoutMs, maxAttempts: 3, retryDelay: 100 }),
      step("groq"),
    ]);
    expect(response.status).toBe(200);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    await response.text();
    expect(calls).toEqual(["openai", "groq"]);
    expect(clock.sleeps).toEqual([]);
    expect(
      emulator!.logs("open").map((log) => [log.step, log.error ?? "ok", log.attempts]),
    ).toEqual([
      [0, "timeout", 1],
      [1, "ok", 1],
    ]);
  });

  it("retries a timed-out last step, its final attempt without a timeout", async () => {
    const { calls } = await start({ openai: [hang, late] });
    const response = await postJson(
      `${emulator!.gatewayUrl("open")}/openai/chat/completions`,
      { model: "m", messages: [{ role: "user", content: "hi" }] },
      {
        authorization: "Bearer sk-test",
        "cf-aig-request-timeout": String(stepTimeoutMs),
        "cf-aig-max-attempts": "2",
      },
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("late");
    expect(calls).toEqual(["openai", "openai"]);
  });

  it("waits at least a 429's Retry-After before retrying", async () => {
    const { clock } = await start({ openai: [status(429, { "retry-after": "2" }), ok] });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("openai", { maxAttempts: 2, retryDelay: 100, requestTimeout: 10_000 }),
    ]);
    expect(response.status).toBe(200);
    await response.text();
    expect(clock.sleeps).toEqual([2000]);
  });

  it("moves on at once when a Retry-After is longer than the step's timeout", async () => {
    const { clock, calls } = await start({
      openai: [status(429, { "retry-after": "30" })],
      groq: [ok],
    });
    const response = await postJson(emulator!.gatewayUrl("open"), [
      step("openai", { maxAttempts: 3, retryDelay: 100, requestTimeout: 10_000 }),
      step("groq"),
    ]);
    expect(response.headers.get("cf-aig-step")).toBe("1");
    await response.text();
    expect(calls).toEqual(["openai", "groq"]);
    expect(clock.sleeps).toEqual([]);
  });
});
