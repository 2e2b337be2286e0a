/**
 * @module
 * Benchmark 2: the emulator vs Portkey's open-source gateway, each in a child process of its
 * own, in front of the same mock providers (in this process), for the same two-step route (Groq
 * first, OpenAI as fallback): healthy, then with the primary answering 503. A fixed number of
 * requests at fixed concurrency, in interleaved blocks; requests per second and p50/p99.
 */
import type { MockProviders } from "../../src/emulator/mocks/index.ts";
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
import { type Call, type LoadResult, runInterleaved, runLoad } from "./load.ts";
import { markdownTable } from "./markdown.ts";
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
import type { BenchContext, Benchmark, BenchResult } from "./types.ts";

const concurrency = 16;

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
): Call {
  const url = `${emulatorUrl}/v1/${accountId}/${gatewayId}`;
  const body = JSON.stringify(universalBody(steps));
  return async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const text = await response.text();
    const served = response.headers.get("cf-aig-step");
    if (response.status !== 200 || served !== String(step)) {
      throw new Error(`emulator: ${response.status}, step ${served}: ${text.slice(0, 200)}`);
    }
  };
}

/** A call to Portkey's chat endpoint that expects target `step` to serve. */
export function portkeyCall(
  portkeyUrl: string,
  targets: readonly PortkeyTarget[],
  step: number,
): Call {
  const url = `${portkeyUrl}/v1/chat/completions`;
  const headers = {
    "content-type": "application/json",
    "x-portkey-config": portkeyFallbackConfig(targets),
  };
  const body = openAiChatBody(targets[0]!.model);
  return async () => {
    const response = await fetch(url, { method: "POST", headers, body });
    const text = await response.text();
    const served = response.headers.get("x-portkey-last-used-option-index");
    if (response.status !== 200 || served !== `config.targets[${step}]`) {
      throw new Error(`Portkey: ${response.status}, ${served}: ${text.slice(0, 200)}`);
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

type Gateway = "emulator" | "portkey";

interface Case {
  readonly name: string;
  readonly results: Record<Gateway, LoadResult>;
  readonly attempts: Record<Gateway, number>;
  /** CPU time each gateway process spent during its measured blocks, in ms. */
  readonly cpuMs: Record<Gateway, number>;
  /** This process's (load generator and mocks) CPU use over the measured blocks, in cores. */
  readonly driverCores: number;
}

async function run(context: BenchContext): Promise<BenchResult> {
  const mocks = await startMocks(context.cleanup);
  context.progress("starting the emulator and Portkey");
  const [emulator, portkey] = await Promise.all([
    startEmulatorChild(context.cleanup, mocks),
    startPortkeyChild(context.cleanup),
  ]);
  const count = context.quick ? 400 : 3_000;
  const cases: Case[] = [];
  for (const failing of [false, true]) {
    resetMocks(mocks);
    if (failing) mocks.setFaults({ rules: [{ provider: primary.provider, kind: "unavailable" }] });
    const step = failing ? 1 : 0;
    const sides = {
      emulator: emulatorCall(emulator.url, [primary, secondary], step),
      portkey: portkeyCall(portkey.url, portkeyTargets(mocks), step),
    };
    const name = failing ? "primary answers 503" : "healthy";
    const attempts = {
      emulator: await attemptsPerCall(mocks, sides.emulator),
      portkey: await attemptsPerCall(mocks, sides.portkey),
    };
    const servers = { emulator, portkey };
    const cpuMs = { emulator: 0, portkey: 0 };
    let blockCpu = 0;
    let driver = { cpu: 0, wall: 0 };
    let driverStart = { cpu: process.cpuUsage(), wall: performance.now() };
    const { sides: results } = await runInterleaved(sides, {
      count,
      blocks: context.quick ? 2 : 4,
      warmup: context.quick ? 50 : 300,
      concurrency,
      beforeBlock: (gateway) => {
        blockCpu = servers[gateway as Gateway].cpuTimeMs() ?? Number.NaN;
        driverStart = { cpu: process.cpuUsage(), wall: performance.now() };
      },
      onBlock: (done, total, gateway) => {
        const used = process.cpuUsage(driverStart.cpu);
        driver = {
          cpu: driver.cpu + (used.user + used.system) / 1000,
          wall: driver.wall + performance.now() - driverStart.wall,
        };
        cpuMs[gateway as Gateway] +=
          (servers[gateway as Gateway].cpuTimeMs() ?? Number.NaN) - blockCpu;
        mocks.clearAttempts();
        context.progress(`${name}: block ${done}/${total}`);
      },
    });
    cases.push({ name, results, attempts, cpuMs, driverCores: driver.cpu / driver.wall });
  }
  resetMocks(mocks);
  const memory = { emulator: await emulator.peakRssBytes(), portkey: await portkey.peakRssBytes() };
  const rows: string[][] = [];
  const ratios: string[] = [];
  for (const item of cases) {
    const rps = {
      emulator: throughput(item.results.emulator.latencies.length, item.results.emulator.elapsedMs),
      portkey: throughput(item.results.portkey.latencies.length, item.results.portkey.elapsedMs),
    };
    for (const gateway of ["emulator", "portkey"] as const) {
      const load = item.results[gateway];
      const summary = summarize(load.latencies);
      rows.push([
        item.name,
        gateway === "emulator" ? "Stepwise emulator" : `Portkey gateway ${portkeyVersion()}`,
        formatCount(load.latencies.length),
        String(load.failures),
        item.attempts[gateway].toFixed(1),
        formatCount(rps[gateway]),
        formatMs(summary.median),
        formatMs(summary.p99),
        formatMs(item.cpuMs[gateway] / load.latencies.length),
      ]);
    }
    ratios.push(
      `${item.name}: emulator ${formatRatio(ratio(rps.emulator, rps.portkey))} Portkey's requests/s`,
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
    ],
    rows,
    ["left", "left", "right", "right", "right", "right", "right", "right", "right"],
  );
  const body = [
    `${formatCount(count)} requests per gateway and route at concurrency ${concurrency} (after a warm-up, in interleaved blocks), non-streaming. Each gateway runs in a child process of its own; the load generator and the mock providers share this process. Both get the route in the request, as AI Gateway's universal endpoint does: the emulator a universal body of two steps, Portkey an \`x-portkey-config\` fallback with the same two targets (\`custom_host\` pointing at the mocks). Neither retries a step; "upstream attempts/call" is counted at the mocks. Every answer is checked: status 200 and the serving step (\`cf-aig-step\`, \`x-portkey-last-used-option-index\`).`,
    "",
    table,
    "",
    `Requests/s ratios — ${ratios.join("; ")}. Peak RSS of each gateway process: emulator ${formatBytes(memory.emulator ?? Number.NaN)}, Portkey ${formatBytes(memory.portkey ?? Number.NaN)}. "Gateway CPU/request" is the gateway process's user + system CPU time over its measured blocks divided by its requests (from \`/proc\`), the figure least sensitive to other load on the machine. The load generator and the mocks used ${cases.map((item) => `${(item.driverCores * 100).toFixed(0)} %`).join(" and ")} of a core during the measured blocks${cases.some((item) => item.driverCores > 0.85) ? ", so they may cap the requests/s of the faster gateway; compare CPU per request too" : ""}.`,
  ].join("\n");
  const headline = cases
    .map((item) => {
      const rps = (gateway: "emulator" | "portkey") =>
        throughput(item.results[gateway].latencies.length, item.results[gateway].elapsedMs);
      return `${item.name}: ${formatCount(rps("emulator"))} vs ${formatCount(rps("portkey"))} req/s`;
    })
    .join("; ");
  return { body, headline: `emulator vs Portkey — ${headline}`, targets: [] };
}

export const gatewayThroughput: Benchmark = {
  id: "gateway-throughput",
  heading: "Gateway throughput and latency",
  run,
};
