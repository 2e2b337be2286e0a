/**
 * @module
 * Benchmark 2: the emulator vs Portkey's open-source gateway, each in a child process of its
 * own, in front of the same mock providers (in this process), for the same two-step route (Groq
 * first, OpenAI as fallback): healthy, then with the primary answering 503. A fixed number of
 * requests at 32 connections, in interleaved blocks; requests per second, p50/p99 and each
 * gateway's CPU per request. Then the emulator alone for 300,000 requests, and its resident
 * memory after them (its logs and caches are bounded; the memory must stay so).
 */
import { loadavg } from "node:os";
import type { MockProviders } from "../../src/emulator/mocks/index.ts";
import { defaultLogCapacity } from "../../src/emulator/options.ts";
import {
  accountId,
  benchKey,
  gatewayId,
  openAiChatBody,
  primary,
  secondary,
  universalBody,
} from "./fixtures.ts";
import { resetMocks, startEmulatorChild, startMocks, startPortkeyChild } from "./lab.ts";
import {
  type Call,
  fetchPost,
  keepAlivePost,
  type LoadResult,
  type Post,
  runInterleaved,
  runLoad,
} from "./load.ts";
import { markdownTable } from "./markdown.ts";
import type { ChildServer } from "./servers/child-server.ts";
import { type PortkeyTarget, portkeyFallbackConfig, portkeyVersion } from "./servers/portkey.ts";
import {
  formatBytes,
  formatCount,
  formatMs,
  formatRatio,
  ratio,
  summarize,
  throughput,
} from "./stats.ts";
import type { BenchContext, Benchmark, BenchResult, TargetCheck } from "./types.ts";

/** Connections (calls in flight) of the load generator. */
const concurrency = 32;
/** Requests through the emulator alone before its resident memory is read (quick: fewer). */
const memoryRequests = { full: 300_000, quick: 20_000 };
/**
 * The targets: requests/s against Portkey's (stretch 5×) and against the upstream called directly
 * (issue 29: at least half), CPU per request (issue 29: 0.15 ms), memory.
 */
const goals = {
  ratio: 3,
  stretchRatio: 5,
  ofDirect: 0.5,
  cpuMs: 0.15,
  rssBytes: 250 * 1000 ** 2,
};

/** Portkey's targets for the bench route; `custom_host` is the mock's base plus the API prefix. */
export function portkeyTargets(
  mocks: Pick<MockProviders, "urls">,
  requestTimeoutMs?: number,
): PortkeyTarget[] {
  const timeout = requestTimeoutMs === undefined ? {} : { requestTimeoutMs };
  return [
    {
      provider: "groq",
      apiKey: benchKey("groq"),
      customHost: `${mocks.urls.groq}openai/v1`,
      model: primary.model,
      ...timeout,
    },
    {
      provider: "openai",
      apiKey: benchKey("openai"),
      customHost: `${mocks.urls.openai}v1`,
      model: secondary.model,
    },
  ];
}

/** A call to the emulator's universal endpoint that expects step `step` to serve. */
export function emulatorCall(
  emulatorUrl: string,
  steps: Parameters<typeof universalBody>[0],
  step: number,
  post: Post = fetchPost,
): Call {
  const url = `${emulatorUrl}/v1/${accountId}/${gatewayId}`;
  const body = JSON.stringify(universalBody(steps));
  const headers = { "content-type": "application/json" };
  return async () => {
    const answer = await post(url, headers, body);
    const served = answer.header("cf-aig-step");
    if (answer.status !== 200 || served !== String(step)) {
      throw new Error(`emulator: ${answer.status}, step ${served}: ${answer.text.slice(0, 200)}`);
    }
  };
}

/** A call to Portkey's chat endpoint that expects target `step` to serve. */
export function portkeyCall(
  portkeyUrl: string,
  targets: readonly PortkeyTarget[],
  step: number,
  post: Post = fetchPost,
): Call {
  const url = `${portkeyUrl}/v1/chat/completions`;
  const headers = {
    "content-type": "application/json",
    "x-portkey-config": portkeyFallbackConfig(targets),
  };
  const body = openAiChatBody(targets[0]!.model);
  return async () => {
    const answer = await post(url, headers, body);
    const served = answer.header("x-portkey-last-used-option-index");
    if (answer.status !== 200 || served !== `config.targets[${step}]`) {
      throw new Error(`Portkey: ${answer.status}, ${served}: ${answer.text.slice(0, 200)}`);
    }
  };
}

/**
 * A call straight to a mock provider's chat endpoint (no gateway): the most the load generator
 * and the mocks can do on this machine, the row every gateway is held against.
 */
export function directCall(
  mocks: Pick<MockProviders, "urls">,
  step: typeof primary,
  post: Post = fetchPost,
): Call {
  const path = step.provider === "groq" ? "openai/v1/chat/completions" : "v1/chat/completions";
  const url = `${mocks.urls[step.provider]}${path}`;
  const headers = {
    "content-type": "application/json",
    authorization: `Bearer ${benchKey(step.provider)}`,
  };
  const body = openAiChatBody(step.model);
  return async () => {
    const answer = await post(url, headers, body);
    if (answer.status !== 200) {
      throw new Error(`direct: ${answer.status}: ${answer.text.slice(0, 200)}`);
    }
  };
}

/** Upstream attempts per call, from a short run of `calls` calls alone. */
async function attemptsPerCall(mocks: MockProviders, call: Call, calls = 20): Promise<number> {
  mocks.clearAttempts();
  const result = await runLoad(call, { count: calls });
  if (result.failures > 0) throw new Error(result.firstFailure);
  const attempts = mocks.attempts.length / calls;
  mocks.clearAttempts();
  return attempts;
}

type Gateway = "direct" | "emulator" | "portkey";

const gatewayNames: Record<Gateway, string> = {
  direct: "upstream called directly (no gateway)",
  emulator: "Stepwise emulator",
  get portkey() {
    return `Portkey gateway ${portkeyVersion()}`;
  },
};

interface Case {
  readonly name: string;
  readonly results: Record<Gateway, LoadResult>;
  readonly attempts: Record<Gateway, number>;
  /** CPU time each gateway process spent during its measured blocks, in ms. */
  readonly cpuMs: Record<Gateway, number>;
  /** This process's (load generator and mocks) CPU use over the measured blocks, in cores. */
  readonly driverCores: number;
}

/** The emulator alone for `requests` healthy calls; its resident memory after them. */
interface MemoryRun {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly rssBytes: number;
  readonly peakRssBytes: number;
}

async function memoryRun(
  context: BenchContext,
  mocks: MockProviders,
  emulator: ChildServer,
  post: Post,
): Promise<MemoryRun> {
  resetMocks(mocks);
  const requests = context.quick ? memoryRequests.quick : memoryRequests.full;
  const call = emulatorCall(emulator.url, [primary, secondary], 0, post);
  const block = 20_000;
  let elapsedMs = 0;
  for (let done = 0; done < requests; done += block) {
    const result = await runLoad(call, { count: Math.min(block, requests - done), concurrency });
    if (result.failures > 0) throw new Error(result.firstFailure);
    elapsedMs += result.elapsedMs;
    // The mocks log every attempt; the emulator's memory is what is measured, not theirs.
    mocks.clearAttempts();
    context.progress(`memory: ${formatCount(done + block)} of ${formatCount(requests)} requests`);
  }
  return {
    requests,
    requestsPerSecond: throughput(requests, elapsedMs),
    rssBytes: (await emulator.rssBytes()) ?? Number.NaN,
    peakRssBytes: (await emulator.peakRssBytes()) ?? Number.NaN,
  };
}

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
    let blockCpu = 0;
    let driver = { cpu: 0, wall: 0 };
    let driverStart = { cpu: process.cpuUsage(), wall: performance.now() };
    const { sides: results } = await runInterleaved(sides, {
      count,
      blocks: context.quick ? 2 : 4,
      warmup: context.quick ? 50 : 300,
      concurrency,
      beforeBlock: (gateway) => {
        blockCpu = servers[gateway as Gateway]?.cpuTimeMs() ?? Number.NaN;
        driverStart = { cpu: process.cpuUsage(), wall: performance.now() };
      },
      onBlock: (done, total, gateway) => {
        const used = process.cpuUsage(driverStart.cpu);
        driver = {
          cpu: driver.cpu + (used.user + used.system) / 1000,
          wall: driver.wall + performance.now() - driverStart.wall,
        };
        cpuMs[gateway as Gateway] +=
          (servers[gateway as Gateway]?.cpuTimeMs() ?? Number.NaN) - blockCpu;
        mocks.clearAttempts();
        context.progress(`${name}: block ${done}/${total}`);
      },
    });
    cases.push({ name, results, attempts, cpuMs, driverCores: driver.cpu / driver.wall });
  }
  resetMocks(mocks);
  const memory = { emulator: await emulator.peakRssBytes(), portkey: await portkey.peakRssBytes() };
  const loadAfterComparison = loadavg()[0]!;
  const memoryResult = await memoryRun(context, mocks, emulator, post);
  const rows: string[][] = [];
  const ratios: string[] = [];
  const measured = cases.map((item) => {
    const rps = {
      direct: throughput(item.results.direct.latencies.length, item.results.direct.elapsedMs),
      emulator: throughput(item.results.emulator.latencies.length, item.results.emulator.elapsedMs),
      portkey: throughput(item.results.portkey.latencies.length, item.results.portkey.elapsedMs),
    };
    const cpu = {
      emulator: item.cpuMs.emulator / item.results.emulator.latencies.length,
      portkey: item.cpuMs.portkey / item.results.portkey.latencies.length,
    };
    return { item, rps, cpu };
  });
  for (const { item, rps, cpu } of measured) {
    for (const gateway of ["direct", "emulator", "portkey"] as const) {
      const load = item.results[gateway];
      const summary = summarize(load.latencies);
      rows.push([
        item.name,
        gatewayNames[gateway],
        formatCount(load.latencies.length),
        String(load.failures),
        item.attempts[gateway].toFixed(1),
        formatCount(rps[gateway]),
        formatMs(summary.median),
        formatMs(summary.p99),
        gateway === "direct" ? "—" : formatMs(cpu[gateway]),
        `${((rps[gateway] / rps.direct) * 100).toFixed(0)} %`,
      ]);
    }
    ratios.push(
      `${item.name}: emulator ${((rps.emulator / rps.direct) * 100).toFixed(0)} % of direct's requests/s (Portkey ${((rps.portkey / rps.direct) * 100).toFixed(0)} %), ${formatRatio(ratio(rps.emulator, rps.portkey))} Portkey's requests/s, ${formatRatio(ratio(cpu.portkey, cpu.emulator))} less CPU per request`,
    );
  }
  const table = markdownTable(
    [
      "route",
      "gateway",
      "requests",
      "errors",
      "upstream attempts/call",
      "requests/s",
      "p50",
      "p99",
      "gateway CPU/request",
      "of direct's requests/s",
    ],
    rows,
    ["left", "left", "right", "right", "right", "right", "right", "right", "right", "right"],
  );
  const healthy = measured[0]!;
  const healthyRatio = ratio(healthy.rps.emulator, healthy.rps.portkey);
  const ofDirect = ratio(healthy.rps.emulator, healthy.rps.direct);
  const targets: TargetCheck[] = [
    {
      name: "requests/s",
      goal: `≥ ${goals.ratio}× Portkey's requests/s at ${concurrency} connections (stretch ${goals.stretchRatio}×)`,
      measured: `${formatRatio(healthyRatio)}${healthyRatio >= goals.stretchRatio ? ", stretch met" : ""}`,
      met: healthyRatio >= goals.ratio,
    },
    {
      name: "of direct",
      goal: `≥ ${(goals.ofDirect * 100).toFixed(0)} % of direct's requests/s at ${concurrency} connections`,
      measured: `${(ofDirect * 100).toFixed(0)} %`,
      met: ofDirect >= goals.ofDirect,
    },
    {
      name: "CPU/request",
      goal: `≤ ${goals.cpuMs} ms emulator CPU per request`,
      measured: formatMs(healthy.cpu.emulator),
      met: healthy.cpu.emulator <= goals.cpuMs,
    },
    {
      name: "memory",
      goal: `RSS ≤ ${formatBytes(goals.rssBytes)} after ${formatCount(memoryRequests.full)} requests`,
      measured: `${formatBytes(memoryResult.rssBytes)} after ${formatCount(memoryResult.requests)}`,
      met: memoryResult.rssBytes <= goals.rssBytes && memoryResult.requests >= memoryRequests.full,
    },
  ];
  const body = [
    `${formatCount(count)} requests per gateway and route at ${concurrency} connections (after a warm-up, in interleaved blocks), non-streaming. Each gateway runs in a child process of its own (the emulator as built, \`dist/\`, what \`stepwise dev\` runs); the load generator (\`node:http\` with keep-alive, the same for both) and the mock providers share this process. Both get the route in the request, as AI Gateway's universal endpoint does: the emulator a universal body of two steps, Portkey an \`x-portkey-config\` fallback with the same two targets (\`custom_host\` pointing at the mocks). Neither retries a step; "upstream attempts/call" is counted at the mocks. *Direct*: the same load generator calls the mock provider that serves the answer (the primary when healthy, the fallback when the primary answers 503) with no gateway in between: the ceiling of this machine, load generator and mocks, in the same interleaving. Every answer is checked: status 200 and the serving step (\`cf-aig-step\`, \`x-portkey-last-used-option-index\`).`,
    "",
    table,
    "",
    `Ratios — ${ratios.join("; ")}. Peak RSS of each gateway process over the comparison: emulator ${formatBytes(memory.emulator ?? Number.NaN)}, Portkey ${formatBytes(memory.portkey ?? Number.NaN)}. "Gateway CPU/request" is the gateway process's user + system CPU time over its measured blocks divided by its requests (from \`/proc\`), the figure least sensitive to other load on the machine. The load generator and the mocks used ${cases.map((item) => `${(item.driverCores * 100).toFixed(0)} %`).join(" and ")} of a core during the measured blocks${cases.some((item) => item.driverCores > 0.85) ? ", so they may cap the requests/s of the faster gateway; compare CPU per request too" : ""}. 1-minute load average ${loadAfterComparison.toFixed(1)} after the comparison (the machine is shared; ratios come from interleaved blocks of the same run).`,
    "",
    `**Memory.** Then the emulator alone served ${formatCount(memoryResult.requests)} more requests of the healthy route (${formatCount(memoryResult.requestsPerSecond)} requests/s, every one logged with its bodies, as by default): resident memory ${formatBytes(memoryResult.rssBytes)} after them, peak ${formatBytes(memoryResult.peakRssBytes)}. Logs are a ring buffer of ${formatCount(defaultLogCapacity)} records per gateway by default (\`stepwise dev --log-capacity\`), bodies at most 32 MiB per gateway, the cache 1,000 entries and 64 MiB.`,
    "",
    targets
      .map(
        (target) =>
          `**Target ${target.goal}**: ${target.met ? "met" : "missed"}, ${target.measured}.`,
      )
      .join("  \n"),
  ].join("\n");
  const headline = measured
    .map(
      ({ item, rps, cpu }) =>
        `${item.name}: ${formatCount(rps.emulator)} vs ${formatCount(rps.portkey)} req/s, direct ${formatCount(rps.direct)} (emulator ${((rps.emulator / rps.direct) * 100).toFixed(0)} % of direct; ${formatMs(cpu.emulator)} vs ${formatMs(cpu.portkey)} CPU/request)`,
    )
    .join("; ");
  return {
    body,
    headline: `emulator vs Portkey at ${concurrency} connections — ${headline}; emulator RSS ${formatBytes(memoryResult.rssBytes)} after ${formatCount(memoryResult.requests)} requests`,
    targets,
  };
}

export const gatewayThroughput: Benchmark = {
  id: "gateway-throughput",
  heading: "Gateway throughput and latency",
  run,
};
