/**
 * @module
 * Benchmark: the emulator's HTTP layer, hand-written on `node:http` (as shipped) vs hono on
 * `@hono/node-server` in front of the same request handling (`servers/hono-front.ts`), to decide
 * whether the emulator moves to hono (issue 15: only if it keeps or improves throughput). Each
 * side is the built emulator in a child process of its own, in front of the same mock providers;
 * the healthy universal route at 32 connections, interleaved blocks, requests/s, p50/p99 and CPU
 * per request of the emulator process (from `/proc`).
 */
import { loadavg } from "node:os";
import { primary, secondary } from "./fixtures.ts";
import { emulatorCall } from "./gateway-calls.ts";
import { resetMocks, startEmulatorChild, startMocks } from "./lab.ts";
import { keepAlivePost, type LoadResult, mergeLoads, runInterleaved } from "./load.ts";
import { markdownTable } from "./markdown.ts";
import { noiseParts, noiseStatement, partsOf } from "./noise.ts";
import { formatCount, formatMs, formatRatio, ratio, summarize, throughput } from "./stats.ts";
import type { BenchContext, Benchmark, BenchResult } from "./types.ts";

/** Connections (calls in flight) of the load generator, as in gateway-throughput. */
const concurrency = 32;

type Front = "node-http" | "hono";
const labels: Record<Front, string> = {
  "node-http": "node:http (as shipped)",
  hono: "hono 4 on @hono/node-server",
};

/** The two ratios over the run's parts, each part's CPU summed from its blocks. */
function layerNoise(
  rounds: readonly Record<Front, LoadResult>[],
  blockCpuMs: Record<Front, number[]>,
): string {
  const indexed = rounds.map((loads, index) => ({ loads, index: [index] }));
  const parts = partsOf(indexed, noiseParts, (a, b) => ({
    loads: {
      "node-http": mergeLoads(a.loads["node-http"], b.loads["node-http"]),
      hono: mergeLoads(a.loads.hono, b.loads.hono),
    },
    index: [...a.index, ...b.index],
  }));
  const rate = (load: LoadResult) => throughput(load.latencies.length, load.elapsedMs);
  const cpu = (front: Front, part: (typeof parts)[number]) =>
    part.index.reduce((sum, index) => sum + blockCpuMs[front][index]!, 0) /
    part.loads[front].latencies.length;
  return noiseStatement(
    `${formatCount(rounds.length === 0 ? 0 : parts[0]!.loads.hono.latencies.length)} requests per side`,
    [
      {
        figure: "hono's requests/s over node:http's",
        values: parts.map((part) => rate(part.loads.hono) / rate(part.loads["node-http"])),
        format: formatRatio,
      },
      {
        figure: "hono's CPU/request over node:http's",
        values: parts.map((part) => cpu("hono", part) / cpu("node-http", part)),
        format: formatRatio,
      },
    ],
  );
}

async function run(context: BenchContext): Promise<BenchResult> {
  const mocks = await startMocks(context.cleanup);
  context.progress("starting the emulator on node:http and behind hono");
  const servers = {
    "node-http": await startEmulatorChild(context.cleanup, mocks, undefined, "node-http"),
    hono: await startEmulatorChild(context.cleanup, mocks, undefined, "hono"),
  };
  const { post } = context.cleanup.add(keepAlivePost(concurrency * 2), (driver) => driver.close());
  const count = context.quick ? 400 : 6_000;
  resetMocks(mocks);
  const sides = {
    "node-http": emulatorCall(servers["node-http"].url, [primary, secondary], 0, post),
    hono: emulatorCall(servers.hono.url, [primary, secondary], 0, post),
  };
  const cpuMs: Record<Front, number> = { "node-http": 0, hono: 0 };
  const blockCpuMs: Record<Front, number[]> = { "node-http": [], hono: [] };
  let blockCpu = 0;
  const { sides: results, rounds } = await runInterleaved(sides, {
    count,
    blocks: context.quick ? 2 : 6,
    warmup: context.quick ? 50 : 500,
    concurrency,
    beforeBlock: (front) => {
      blockCpu = servers[front as Front].cpuTimeMs() ?? Number.NaN;
    },
    onBlock: (done, total, front) => {
      const used = (servers[front as Front].cpuTimeMs() ?? Number.NaN) - blockCpu;
      cpuMs[front as Front] += used;
      blockCpuMs[front as Front].push(used);
      mocks.clearAttempts();
      context.progress(`block ${done}/${total}`);
    },
  });
  const load = loadavg()[0]!;
  const fronts = ["node-http", "hono"] as const;
  const rps = Object.fromEntries(
    fronts.map((front) => [
      front,
      throughput(results[front].latencies.length, results[front].elapsedMs),
    ]),
  ) as Record<Front, number>;
  const cpu = Object.fromEntries(
    fronts.map((front) => [front, cpuMs[front] / results[front].latencies.length]),
  ) as Record<Front, number>;
  const rows = fronts.map((front) => {
    const summary = summarize(results[front].latencies);
    return [
      labels[front],
      formatCount(results[front].latencies.length),
      String(results[front].failures),
      formatCount(rps[front]),
      formatMs(summary.median),
      formatMs(summary.p99),
      formatMs(cpu[front]),
    ];
  });
  const table = markdownTable(
    ["HTTP layer", "requests", "errors", "requests/s", "p50", "p99", "emulator CPU/request"],
    rows,
    ["left", "right", "right", "right", "right", "right", "right"],
  );
  const speed = ratio(rps.hono, rps["node-http"]);
  const cpuRatio = ratio(cpu.hono, cpu["node-http"]);
  const honoFaster = speed >= 1 && cpuRatio <= 1;
  const decision = honoFaster
    ? `hono kept or improved throughput (${formatRatio(speed)} the requests/s, ${formatRatio(cpuRatio)} the CPU per request): move the emulator's HTTP layer to hono.`
    : `The emulator keeps its node:http layer: behind hono it served ${formatRatio(speed)} the requests/s at ${formatRatio(cpuRatio)} the CPU per request of node:http.`;
  const body = [
    `${formatCount(count)} requests per HTTP layer of the healthy universal route (two steps, the first serves) at ${concurrency} connections, after a warm-up, in interleaved blocks of the same run. Both sides are the built emulator (\`dist/\`) in a child process of its own in front of the same mock providers (in this process), with the same request handling behind the HTTP layer: hono's side routes the gateway paths with hono's router on \`@hono/node-server\` and hands the request to the emulator's handler as Node's \`incoming\`/\`outgoing\` (\`RESPONSE_ALREADY_SENT\`), the least a move to hono would cost (a full move would also turn bodies into Web \`Request\`/\`Response\`; the emulator's own route lookup, a small part, still runs on both sides). "Emulator CPU/request" is the child process's user + system CPU over its measured blocks divided by its requests (from \`/proc\`).`,
    "",
    table,
    "",
    `**Decision.** ${decision} 1-minute load average ${load.toFixed(1)} after the comparison (the machine is shared; the ratio comes from interleaved blocks).`,
  ].join("\n");
  return {
    body,
    headline: `hono ${formatRatio(speed)} node:http's requests/s, ${formatRatio(cpuRatio)} its CPU/request (${formatCount(rps.hono)} vs ${formatCount(rps["node-http"])} req/s) — ${honoFaster ? "moved to hono" : "kept node:http"}`,
    // A decision, not a target: the faster layer is kept.
    targets: [],
    noise: layerNoise(rounds, blockCpuMs),
  };
}

export const emulatorHttpLayer: Benchmark = {
  id: "emulator-http-layer",
  heading: "Emulator HTTP layer: node:http vs hono",
  run,
};
