/**
 * @module
 * Shared setup for the client tests: the routes fixture, provider fixtures (the same recorded
 * bodies the adapter tests use), a manual clock, a sleep that records its waits instead of
 * waiting, and a client factory with every seam injected.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type BreakerOptions,
  type CircuitBreaker,
  createCircuitBreaker,
} from "../../src/client/breaker.ts";
import { createGatewayFetch, type GatewayFetchOptions } from "../../src/client/fetch.ts";
import {
  createGatewayClient,
  type FetchFunction,
  type GatewayClient,
  type GatewayClientOptions,
  type MemoryRecorder,
  memoryRecorder,
} from "../../src/client/index.ts";
import type { RouteConfig } from "../../src/config/schema.ts";

const fixtures = new URL("../__fixtures__/", import.meta.url);

/** A fixture's text, by path under `test/__fixtures__/`. */
export function fixtureText(path: string): string {
  return readFileSync(fileURLToPath(new URL(path, fixtures)), "utf8");
}

/** A recorded stream fixture, split into its events (the test server sends each as one chunk). */
export function eventsOf(path: string): string[] {
  return fixtureText(path)
    .split(/\n\n/)
    .filter((event) => event.trim() !== "")
    .map((event) => `${event}\n\n`);
}

/** A JSON fixture, parsed. */
export function fixtureJson(path: string): Record<string, unknown> {
  return JSON.parse(fixtureText(path)) as Record<string, unknown>;
}

/** The routes of `test/__fixtures__/client/routes.json`: `default` (3 steps) and `fast`. */
export const routes = fixtureJson("client/routes.json") as unknown as Record<string, RouteConfig>;

export const accountId = "0123456789abcdef0123456789abcdef";
export const gatewayId = "chat-prod";
export const baseUrl = "https://gateway.test";
export const gatewayUrl = `${baseUrl}/v1/${accountId}/${gatewayId}`;
export const compatUrl = `${gatewayUrl}/compat/chat/completions`;

/** Secrets that must never show up in events or errors. */
export const secrets = {
  gatewayToken: "gw-token-SECRET-0001",
  anthropic: "sk-ant-SECRET-0002",
  openai: "sk-openai-SECRET-0003",
  "workers-ai": "cf-ai-SECRET-0004",
  groq: "gsk-SECRET-0005",
} as const;

export const prices = {
  "anthropic/claude-sonnet-4-5": { input: 3, output: 15 },
  "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  "workers-ai/@cf/meta/llama-3.1-8b-instruct": { input: 0.28, output: 0.83 },
};

export const messages = [
  { role: "system", content: "You are a terse geography tutor." },
  { role: "user", content: "What is the capital of Italy?" },
] as const;

/** The answer every provider fixture gives. */
export const fixtureAnswer = "Rome — la Città Eterna. ☀️";

/** A clock that moves only when told. */
export class ManualClock {
  time = Date.parse("2026-05-01T12:00:00.000Z");
  readonly now = (): number => this.time;
  advance(ms: number): void {
    this.time += ms;
  }
}

/** A sleep that records each wait, advances the clock and returns at once. */
export function recordingSleep(clock?: ManualClock) {
  const waits: number[] = [];
  const sleep = async (ms: number, signal?: AbortSignal) => {
    if (signal?.aborted) throw signal.reason;
    waits.push(ms);
    clock?.advance(ms);
  };
  return { waits, sleep };
}

/**
 * A client with injected clock, ids, sleep and a memory recorder; with `breaker` settings, also a
 * circuit breaker on the same clock. `fetch` is `createGatewayFetch` with the same options.
 */
export function testClient(
  overrides: Partial<GatewayClientOptions> = {},
  breakerOptions?: BreakerOptions,
  fetchOptions?: GatewayFetchOptions,
): {
  client: GatewayClient;
  fetch: FetchFunction;
  breaker: CircuitBreaker | undefined;
  recorder: MemoryRecorder;
  clock: ManualClock;
  waits: number[];
} {
  const clock = new ManualClock();
  const recorder = memoryRecorder();
  const { waits, sleep } = recordingSleep(clock);
  const breaker =
    breakerOptions === undefined
      ? undefined
      : createCircuitBreaker({ ...breakerOptions, now: clock.now });
  let next = 0;
  const options: GatewayClientOptions = {
    accountId,
    gatewayId,
    baseUrl,
    gatewayToken: secrets.gatewayToken,
    routes,
    prices,
    keyLookup: (provider) => secrets[provider as keyof typeof secrets],
    now: clock.now,
    generateId: () => `call-${++next}`,
    sleep,
    recorder,
    breaker,
    ...overrides,
  };
  return {
    client: createGatewayClient(options),
    fetch: createGatewayFetch(options, fetchOptions),
    breaker,
    recorder,
    clock,
    waits,
  };
}

/** Gateway answer headers naming the served step. */
export function servedHeaders(
  step: number,
  provider: string,
  model: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    "cf-aig-step": String(step),
    "cf-aig-provider": provider,
    "cf-aig-model": model,
    "cf-aig-log-id": `01JLOG${step}ABCDEFGHJKMNPQRSTV`,
    "cf-aig-cache-status": "MISS",
    ...extra,
  };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}
