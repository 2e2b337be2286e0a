/**
 * @module
 * Generates realistic `CallEvent` JSON lines for tests and benchmarks, deterministically from a
 * seed. Traffic follows the routes and prices of `Pulumi.dev.yaml` and a scripted day: a healthy
 * period, a primary outage on chat-prod/default (5xx and timeouts, served by fallbacks), a 429
 * storm on groq (route `fast`), a revoked openai key on batch-dev/summarise (401, served by
 * deepseek), and recovery; plus client errors (400), caching and streaming.
 *
 * Usage:
 *   npx tsx tools/scripts/generate-events.ts --count 1000000 --out events.jsonl [--seed 1]
 *     [--start 2026-05-01T00:00:00Z] [--span 1d] [--malformed-every 0]
 */

import { once } from "node:events";
import { createWriteStream, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { CallEvent } from "../../src/client/event.ts";
import { parseConfigText } from "../../src/config/index.ts";
import { createSeededRandom } from "../../src/emulator/mocks/random.ts";

export interface GenerateEventsOptions {
  /** Number of events. */
  readonly count: number;
  /** PRNG seed (default 1). */
  readonly seed?: number;
  /** Time of the first event, epoch ms (default 2026-05-01T00:00:00Z). */
  readonly start?: number;
  /** Time the events spread over, ms (default one day). */
  readonly spanMs?: number;
}

interface Step {
  provider: string;
  model: string;
  timeoutMs: number;
  medianMs: number;
}

interface Route {
  gateway: string;
  route: string;
  weight: number;
  cache: boolean;
  steps: Step[];
}

/** The dev stack: its routes' steps and timeouts and its model prices drive the traffic. */
const devStack = parseConfigText(
  readFileSync(fileURLToPath(new URL("../../Pulumi.dev.yaml", import.meta.url)), "utf8"),
  "Pulumi.dev.yaml",
);
const prices = devStack.models;

/** What the stack does not say: each route's share of traffic and each model's typical latency. */
const trafficWeights: Record<string, number> = {
  "chat-prod/default": 0.5,
  "chat-prod/fast": 0.25,
  "chat-prod/long-context": 0.1,
  "batch-dev/summarise": 0.15,
  // Called as dynamic/default through the compat endpoint, which these events do not model.
  "chat-dynamic/default": 0,
  // Routing policies pick a chain per call from its metadata, which these events do not model.
  "chat-prod/assistant": 0,
  "chat-dynamic/assistant": 0,
};
const medianLatencyMs: Record<string, number> = {
  "anthropic/claude-sonnet-4-5": 900,
  "openai/gpt-4o-mini": 450,
  "openai/gpt-4o": 1_600,
  "workers-ai/@cf/meta/llama-3.1-8b-instruct": 300,
  "groq/llama-3.1-8b-instant": 140,
  "google-ai-studio/gemini-2.5-flash": 1_400,
  "mistral/mistral-large-latest": 1_500,
  "deepseek/deepseek-chat": 1_100,
};

/** The routes of Pulumi.dev.yaml with a traffic weight and typical latencies. */
export const demoRoutes: readonly Route[] = devStack.gateways.flatMap((gateway) =>
  Object.entries(gateway.routes).map(([name, route]) => ({
    gateway: gateway.id,
    route: name,
    weight: trafficWeights[`${gateway.id}/${name}`] ?? 0.05,
    cache: gateway.cache.ttl > 0,
    steps: route.steps.map((step) => ({
      provider: step.provider,
      model: step.model,
      timeoutMs: step.timeoutMs ?? 30_000,
      medianMs: medianLatencyMs[`${step.provider}/${step.model}`] ?? 800,
    })),
  })),
);

type Failure = { status: number; code: string; latencyMs: number };

/** The project's seeded PRNG (mulberry32), re-exported for the tests that generate data. */
export const createRandom = createSeededRandom;

/** Yields `count` events in time order. */
export function* generateEvents(options: GenerateEventsOptions): Generator<CallEvent> {
  const random = createRandom(options.seed ?? 1);
  const start = options.start ?? Date.parse("2026-05-01T00:00:00Z");
  const span = options.spanMs ?? 86_400_000;
  const gap = span / Math.max(1, options.count);
  const logNormal = (median: number, sigma: number) => {
    const u = Math.max(1e-12, random());
    const v = random();
    return median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
  };
  for (let index = 0; index < options.count; index += 1) {
    const phase = index / Math.max(1, options.count);
    const route = pickRoute(random());
    const time = new Date(start + Math.floor(index * gap + random() * gap)).toISOString();
    let latency = 0;
    let served: number | null = null;
    let last: Failure | null = null;
    let attempts = 0;
    const badRequest = random() < 0.003;
    const cached = route.cache && !badRequest && random() < 0.08;
    for (const [position, candidate] of route.steps.entries()) {
      attempts += 1;
      const failure = badRequest ? null : stepFailure(route, position, phase, random, candidate);
      if (failure) {
        latency += failure.latencyMs;
        last = failure;
        continue;
      }
      served = position;
      latency += cached ? logNormal(18, 0.4) : logNormal(candidate.medianMs, 0.55);
      break;
    }
    const chosen = route.steps[served ?? route.steps.length - 1] ?? route.steps[0];
    const ok = served !== null && !badRequest;
    const tokensIn = ok || badRequest ? Math.round(logNormal(600, 0.7)) : null;
    const tokensOut = ok ? Math.round(logNormal(250, 0.8)) : null;
    const price = chosen ? prices[`${chosen.provider}/${chosen.model}`] : undefined;
    const cost =
      ok && price && tokensIn !== null && tokensOut !== null
        ? cached
          ? 0
          : (tokensIn * price.input + tokensOut * price.output) / 1_000_000
        : null;
    const cacheRoll = random();
    yield {
      time,
      id: `evt-${options.seed ?? 1}-${index}`,
      gateway: route.gateway,
      route: route.route,
      mode: random() < 0.8 ? "universal" : "dynamic",
      step: badRequest ? 0 : served,
      provider: chosen?.provider ?? null,
      model: chosen?.model ?? null,
      status: badRequest ? 400 : ok ? 200 : (last?.status ?? 0),
      ok,
      cacheStatus: cacheRoll < 0.05 ? null : cached ? "HIT" : "MISS",
      latencyMs: Math.round(latency * 10) / 10,
      tokensIn,
      tokensOut,
      cost,
      errorCode: badRequest ? "bad_request" : ok ? null : "all_steps_failed",
      logId: ok ? logIdFrom(random) : null,
      attempts,
      streamed: random() < 0.3,
    };
  }
}

/** A 26-character ULID-shaped log id, like the gateway's `cf-aig-log-id`. */
function logIdFrom(random: () => number): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let id = "01J";
  for (let index = 0; index < 23; index += 1) id += alphabet[Math.floor(random() * 32)];
  return id;
}

function pickRoute(roll: number): Route {
  let sum = 0;
  for (const route of demoRoutes) {
    sum += route.weight;
    if (roll < sum) return route;
  }
  return demoRoutes[0] as Route;
}

/** Whether step `position` of `route` fails at this point of the scripted day, and how. */
function stepFailure(
  route: Route,
  position: number,
  phase: number,
  random: () => number,
  candidate: Step,
): Failure | null {
  let failRate = 0.01;
  let failure: Failure = { status: 502, code: "upstream_error", latencyMs: 80 + random() * 200 };
  if (route.route === "default" && position === 0 && phase >= 0.4 && phase < 0.55) {
    failRate = 0.85;
    if (random() < 0.3) failure = { status: 0, code: "timeout", latencyMs: candidate.timeoutMs };
    else failure = { status: 503, code: "upstream_error", latencyMs: 40 + random() * 100 };
  }
  if (route.route === "fast" && position === 0 && phase >= 0.55 && phase < 0.65) {
    failRate = 0.6;
    failure = { status: 429, code: "rate_limited", latencyMs: 20 + random() * 30 };
  }
  if (route.route === "summarise" && position === 0 && phase >= 0.65 && phase < 0.75) {
    failRate = 1;
    failure = { status: 401, code: "unauthorized", latencyMs: 30 + random() * 30 };
  }
  return random() < failRate ? failure : null;
}

/** Yields JSON lines; every `malformedEvery`-th line (if > 0) is broken in one of a few ways. */
export function* generateEventLines(
  options: GenerateEventsOptions & { readonly malformedEvery?: number },
): Generator<string> {
  let index = 0;
  for (const event of generateEvents(options)) {
    index += 1;
    const every = options.malformedEvery ?? 0;
    if (every > 0 && index % every === 0) {
      const kind = (index / every) % 3;
      const text = JSON.stringify(event);
      if (kind === 0) yield text.slice(0, Math.floor(text.length / 2));
      else if (kind === 1) yield JSON.stringify({ ...event, latencyMs: "slow" });
      else yield JSON.stringify({ ...event, gateway: undefined });
      continue;
    }
    yield JSON.stringify(event);
  }
}

/** Writes the lines to `path`, respecting back-pressure. */
export async function writeEventLines(path: string, lines: Iterable<string>): Promise<void> {
  const stream = createWriteStream(path, { encoding: "utf8" });
  let chunk: string[] = [];
  for (const line of lines) {
    chunk.push(line);
    if (chunk.length === 1000) {
      if (!stream.write(`${chunk.join("\n")}\n`)) await once(stream, "drain");
      chunk = [];
    }
  }
  if (chunk.length > 0) stream.write(`${chunk.join("\n")}\n`);
  stream.end();
  await once(stream, "finish");
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      count: { type: "string", default: "100000" },
      out: { type: "string" },
      seed: { type: "string", default: "1" },
      start: { type: "string", default: "2026-05-01T00:00:00Z" },
      span: { type: "string", default: "1d" },
      "malformed-every": { type: "string", default: "0" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const count = Number(values.count);
  const start = Date.parse(values.start);
  const spanMatch = /^(\d+)(m|h|d)$/.exec(values.span);
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[
    (spanMatch?.[2] ?? "d") as "m" | "h" | "d"
  ];
  if (
    values.help ||
    !values.out ||
    !Number.isInteger(count) ||
    count < 0 ||
    Number.isNaN(start) ||
    !spanMatch
  ) {
    console.error(
      "Usage: npx tsx tools/scripts/generate-events.ts --count <n> --out <file> [--seed 1] [--start ISO] [--span 1d] [--malformed-every 0]",
    );
    process.exitCode = values.help ? 0 : 1;
    return;
  }
  const began = performance.now();
  await writeEventLines(
    values.out,
    generateEventLines({
      count,
      seed: Number(values.seed),
      start,
      spanMs: Number(spanMatch[1]) * unit,
      malformedEvery: Number(values["malformed-every"]),
    }),
  );
  console.error(
    `wrote ${count} events to ${values.out} in ${((performance.now() - began) / 1000).toFixed(1)} s`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
