/**
 * @module
 * Benchmark 2: the emulator vs Portkey's open-source gateway, each in a child process of its
 * own, in front of the same mock providers (in this process), for the same two-step route (Groq
 * first, OpenAI as fallback): healthy, then with the primary answering 503, beside the upstream
 * called directly. A fixed number of requests at 32 connections, in interleaved blocks; requests
 * per second, p50/p99 and each gateway's CPU per request. Then the emulator alone for 300,000
 * requests, and its resident memory after them (gateway-memory.ts). The calls are in
 * gateway-calls.ts, the block's text in gateway-throughput-text.ts.
 */
import { loadavg } from "node:os";
import { primary, secondary } from "./fixtures.ts";
import {
  attemptsPerCall,
  directCall,
  emulatorCall,
  portkeyCall,
  portkeyTargets,
} from "./gateway-calls.ts";
import { memoryRun } from "./gateway-memory.ts";
import { type Case, type Gateway, throughputResult } from "./gateway-throughput-text.ts";
import { resetMocks, startEmulatorChild, startMocks, startPortkeyChild } from "./lab.ts";
import { keepAlivePost, runInterleaved } from "./load.ts";
import type { ChildServer } from "./servers/child-server.ts";
import type { BenchContext, Benchmark, BenchResult } from "./types.ts";

/** Connections (calls in flight) of the load generator. */
const concurrency = 32;

async function run(context: BenchContext): Promise<BenchResult> {
  const mocks = await startMocks(context.cleanup);
  context.progress("starting the emulator and Portkey");
  const [emulator, portkey] = await Promise.all([
    startEmulatorChild(context.cleanup, mocks),
    startPortkeyChild(context.cleanup),
  ]);
  const { post } = context.cleanup.add(keepAlivePost(concurrency * 2), (driver) => driver.close());
  const count = context.quick ? 400 : 3_000;
  const cases: Case[] = [];
  for (const failing of [false, true]) {
    resetMocks(mocks);
    if (failing) mocks.setFaults({ rules: [{ provider: primary.provider, kind: "unavailable" }] });
    const step = failing ? 1 : 0;
    const sides = {
      // The answer the user gets, fetched from the provider that serves it.
      direct: directCall(mocks, failing ? secondary : primary, post),
      emulator: emulatorCall(emulator.url, [primary, secondary], step, post),
      portkey: portkeyCall(portkey.url, portkeyTargets(mocks), step, post),
    };
    const name = failing ? "primary answers 503" : "healthy";
    const attempts = {
      direct: 1,
      emulator: await attemptsPerCall(mocks, sides.emulator),
      portkey: await attemptsPerCall(mocks, sides.portkey),
    };
    const servers: Partial<Record<Gateway, ChildServer>> = { emulator, portkey };
    const cpuMs = { direct: Number.NaN, emulator: 0, portkey: 0 };
    // Each gateway's CPU per block, in the order of the rounds, for the noise.
    const blockCpuMs: Record<Gateway, number[]> = { direct: [], emulator: [], portkey: [] };
    let blockCpu = 0;
    let driver = { cpu: 0, wall: 0 };
    let driverStart = { cpu: process.cpuUsage(), wall: performance.now() };
    const { sides: results, rounds } = await runInterleaved(sides, {
      count,
      blocks: context.quick ? 2 : 4,
      // V8 needs about 3,000 requests to optimise a gateway's hot path: the emulator's CPU per
      // request falls from about 0.7 ms to 0.12–0.14 ms over its first 3,000 and is flat after.
      // With a shorter warm-up the figure measures the warm-up, not the gateway.
      warmup: context.quick ? 300 : 3000,
      concurrency,
      beforeBlock: (gateway) => {
        blockCpu = servers[gateway as Gateway]?.cpuTimeMs() ?? Number.NaN;
        driverStart = { cpu: process.cpuUsage(), wall: performance.now() };
      },
      onBlock: (done, total, gateway) => {
        const driverUsed = process.cpuUsage(driverStart.cpu);
        driver = {
          cpu: driver.cpu + (driverUsed.user + driverUsed.system) / 1000,
          wall: driver.wall + performance.now() - driverStart.wall,
        };
        const used = (servers[gateway as Gateway]?.cpuTimeMs() ?? Number.NaN) - blockCpu;
        cpuMs[gateway as Gateway] += used;
        blockCpuMs[gateway as Gateway].push(used);
        mocks.clearAttempts();
        context.progress(`${name}: block ${done}/${total}`);
      },
    });
    cases.push({
      name,
      results,
      attempts,
      cpuMs,
      driverCores: driver.cpu / driver.wall,
      rounds: rounds.map((loads, index) => ({
        loads,
        cpuMs: {
          direct: Number.NaN,
          emulator: blockCpuMs.emulator[index]!,
          portkey: blockCpuMs.portkey[index]!,
        },
      })),
    });
  }
  resetMocks(mocks);
  const memory = { emulator: await emulator.peakRssBytes(), portkey: await portkey.peakRssBytes() };
  const loadAfterComparison = loadavg()[0]!;
  return throughputResult({
    count,
    concurrency,
    cases,
    peakRss: memory,
    loadAfterComparison,
    memory: await memoryRun(context, mocks, emulator, post, concurrency),
  });
}

export const gatewayThroughput: Benchmark = {
  id: "gateway-throughput",
  heading: "Gateway throughput and latency",
  run,
};
