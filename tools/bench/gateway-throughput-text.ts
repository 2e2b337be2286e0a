/**
 * @module
 * The gateway throughput benchmark's results as its BENCHMARKS.md block, pure: the table (with
 * each gateway's share of direct's requests/s), the ratios, the memory run and the targets.
 */
import { defaultLogCapacity } from "../../src/emulator/options.ts";
import type { MemoryRun } from "./gateway-memory.ts";
import { memoryRequests } from "./gateway-memory.ts";
import { type LoadResult, mergeLoads } from "./load.ts";
import { markdownTable } from "./markdown.ts";
import { noiseParts, noiseStatement, partsOf } from "./noise.ts";
import { portkeyVersion } from "./servers/portkey.ts";
import {
  formatBytes,
  formatCount,
  formatMs,
  formatRatio,
  ratio,
  summarize,
  throughput,
} from "./stats.ts";
import type { BenchResult, TargetCheck } from "./types.ts";

/**
 * The targets: requests/s against Portkey's (stretch 5×) and against the upstream called directly
 * (issue 29: at least half), CPU per request (issue 29: 0.15 ms), memory.
 */
export const goals = {
  ratio: 3,
  stretchRatio: 5,
  ofDirect: 0.5,
  cpuMs: 0.15,
  rssBytes: 250 * 1000 ** 2,
};

/** The sides of the comparison. */
export type Gateway = "direct" | "emulator" | "portkey";

const gatewayNames: Record<Gateway, string> = {
  direct: "upstream called directly (no gateway)",
  emulator: "Stepwise emulator",
  get portkey() {
    return `Portkey gateway ${portkeyVersion()}`;
  },
};

/** One route's comparison. */
export interface Case {
  readonly name: string;
  readonly results: Record<Gateway, LoadResult>;
  readonly attempts: Record<Gateway, number>;
  /** CPU time each gateway process spent during its measured blocks, in ms. */
  readonly cpuMs: Record<Gateway, number>;
  /** This process's (load generator and mocks) CPU use over the measured blocks, in cores. */
  readonly driverCores: number;
  /** Each round's blocks and the gateways' CPU in them, for the noise. */
  readonly rounds: readonly Round[];
}

/** One round of interleaved blocks: every side's load and each gateway's CPU time in ms. */
export interface Round {
  readonly loads: Record<Gateway, LoadResult>;
  readonly cpuMs: Record<Gateway, number>;
}

function mergeRounds(first: Round, second: Round): Round {
  const sides = ["direct", "emulator", "portkey"] as const;
  return {
    loads: Object.fromEntries(
      sides.map((side) => [side, mergeLoads(first.loads[side], second.loads[side])]),
    ) as Record<Gateway, LoadResult>,
    cpuMs: Object.fromEntries(
      sides.map((side) => [side, first.cpuMs[side] + second.cpuMs[side]]),
    ) as Record<Gateway, number>,
  };
}

const rateOf = (load: LoadResult) => throughput(load.latencies.length, load.elapsedMs);

/** The healthy route's headline figures over the run's parts: share of direct, CPU/request. */
export function throughputNoise(healthy: Case): string {
  const parts = partsOf(healthy.rounds, noiseParts, mergeRounds);
  const requests = healthy.results.emulator.latencies.length;
  return noiseStatement(
    `about ${formatCount(requests / Math.max(1, parts.length))} requests per side, healthy route`,
    [
      {
        figure: "emulator's share of direct's requests/s",
        values: parts.map((part) => rateOf(part.loads.emulator) / rateOf(part.loads.direct)),
        format: (value) => `${(value * 100).toFixed(0)} %`,
      },
      {
        figure: "emulator vs Portkey requests/s",
        values: parts.map((part) => rateOf(part.loads.emulator) / rateOf(part.loads.portkey)),
        format: formatRatio,
      },
      {
        figure: "emulator CPU/request",
        values: parts.map((part) => part.cpuMs.emulator / part.loads.emulator.latencies.length),
        format: formatMs,
      },
    ],
  );
}

/** Everything one run measured. */
export interface ThroughputRun {
  readonly count: number;
  readonly concurrency: number;
  readonly cases: readonly Case[];
  /** Peak RSS of each gateway process over the comparison. */
  readonly peakRss: { readonly emulator: number | undefined; readonly portkey: number | undefined };
  readonly loadAfterComparison: number;
  readonly memory: MemoryRun;
}

/** The block, headline and targets of one run. */
export function throughputResult(run: ThroughputRun): BenchResult {
  const { count, concurrency, cases, loadAfterComparison } = run;
  const memory = run.peakRss;
  const memoryResult = run.memory;
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
    noise: throughputNoise(healthy.item),
  };
}
