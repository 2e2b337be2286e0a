/**
 * @module
 * Benchmark 4: the companion Worker's proxy overhead. The Worker runs in workerd (Miniflare, the
 * bundle `wrangler deploy --dry-run` builds, a real local KV seeded through its admin API) in
 * front of the emulator; the same client calls go through the Worker (app token, the Worker
 * injects the provider keys) and straight to the emulator (keys in the request).
 */
import {
  callbackRecorder,
  createGatewayClient,
  type GatewayClient,
} from "../../src/client/index.ts";
import { parseConfig } from "../../src/config/index.ts";
import { startLocalSystem } from "../../src/demo/local-system.ts";
import { accountId, benchConfig, gatewayId, messages, primary, secondary } from "./fixtures.ts";
import { type Call, type LoadResult, runInterleaved } from "./load.ts";
import { markdownTable } from "./markdown.ts";
import {
  formatCount,
  formatDeltaMs,
  formatMs,
  formatRatio,
  ratio,
  summarize,
  throughput,
} from "./stats.ts";
import type { BenchContext, Benchmark, BenchResult } from "./types.ts";

const concurrency = 16;

function call(client: GatewayClient): Call {
  return async () => {
    const answer = await client.chat({ route: "default", messages });
    if (answer.served.index !== 0) throw new Error(`served by step ${answer.served.index}`);
  };
}

function workerGet(baseUrl: string, path: string, token: string | undefined): Call {
  const headers: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  return async () => {
    const response = await fetch(`${baseUrl}${path}`, { headers });
    await response.text();
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
  };
}

async function run(context: BenchContext): Promise<BenchResult> {
  const system = await startLocalSystem({
    config: parseConfig(benchConfig()),
    onStep: (message) => context.progress(message),
  });
  context.cleanup.add(system, (started) => started.close());
  const common = {
    accountId,
    gatewayId,
    routes: { default: [primary, secondary] },
    recorder: callbackRecorder(() => undefined),
  };
  const viaWorker = createGatewayClient({
    ...common,
    baseUrl: system.worker.url,
    gatewayToken: system.appToken,
  });
  const direct = createGatewayClient({
    ...common,
    baseUrl: system.emulator.url,
    gatewayToken: system.emulator.gatewayToken,
    keyLookup: (provider) => system.currentKey(provider),
  });
  const sides = { direct: call(direct), worker: call(viaWorker) };
  const sequential = await runInterleaved(sides, {
    count: context.quick ? 200 : 1_000,
    blocks: context.quick ? 2 : 6,
    warmup: context.quick ? 50 : 200,
    onBlock: (done, total) => context.progress(`sequential block ${done}/${total}`),
  });
  const loaded = await runInterleaved(sides, {
    count: context.quick ? 400 : 2_000,
    blocks: context.quick ? 2 : 4,
    warmup: 50,
    concurrency,
    onBlock: (done, total) =>
      context.progress(`concurrency ${concurrency}: block ${done}/${total}`),
  });
  const parts = await runInterleaved(
    {
      hop: workerGet(system.worker.url, "/", undefined),
      health: workerGet(system.worker.url, "/health", system.appToken),
    },
    { count: context.quick ? 100 : 400, blocks: 2, warmup: 20 },
  );
  const rows: string[][] = [];
  for (const [mode, result] of [
    ["sequential", sequential.sides],
    [`concurrency ${concurrency}`, loaded.sides],
  ] as const) {
    const base = summarize(result.direct.latencies);
    for (const [path, load] of [
      ["client → emulator", result.direct],
      ["client → Worker (workerd) → emulator", result.worker],
    ] as const) {
      const summary = summarize(load.latencies);
      rows.push([
        mode,
        path,
        formatCount(summary.count),
        String(load.failures),
        formatCount(throughput(load.latencies.length, load.elapsedMs)),
        formatMs(summary.median),
        formatMs(summary.p99),
        load === result.direct ? "—" : formatDeltaMs(summary.median - base.median),
        load === result.direct ? "—" : formatRatio(ratio(summary.median, base.median)),
      ]);
    }
  }
  const added = (result: Record<"direct" | "worker", LoadResult>) =>
    summarize(result.worker.latencies).median - summarize(result.direct.latencies).median;
  const table = markdownTable(
    ["load", "path", "calls", "errors", "calls/s", "median", "p99", "added (median)", "ratio"],
    rows,
    ["left", "left", "right", "right", "right", "right", "right", "right", "right"],
  );
  const partRows = [
    ["`GET /` (routing only: no token, no KV)", parts.sides.hop],
    [
      "`GET /health` with the app token (token check: one KV read; then one KV list)",
      parts.sides.health,
    ],
  ].map(([name, load]) => {
    const summary = summarize((load as LoadResult).latencies);
    return [name as string, formatMs(summary.median), formatMs(summary.p99)];
  });
  const partsTable = markdownTable(["request to the Worker alone", "median", "p99"], partRows, [
    "left",
    "right",
    "right",
  ]);
  const body = [
    `\`client.chat\` over a healthy two-step route, sequential and at concurrency ${concurrency}, interleaved blocks after a warm-up. Through the Worker, each call authenticates its app token (hashed, looked up in KV), checks the app rate limit, injects the current key of each step's provider from KV into the universal body and forwards it to the emulator; the emulator runs in this process with its mock providers, workerd in its own.`,
    "",
    table,
    "",
    "Where the time goes, sequential requests that never reach the emulator:",
    "",
    partsTable,
    "",
    "A proxied universal call also reads the app's rate-limit counter and one key per step from KV (and writes the counter back after answering), re-reads and validates `STEPWISE_CONFIG` (about 0.1 ms in Node), and makes a second loopback hop, to the emulator. These figures are workerd with Miniflare's local KV simulator on the same two cores, not Cloudflare's network; what they show is the number of round trips per call.",
  ].join("\n");
  return {
    body,
    headline: `the Worker adds ${formatDeltaMs(added(sequential.sides))} per call at the median (sequential), ${formatDeltaMs(added(loaded.sides))} at concurrency ${concurrency}`,
    targets: [],
  };
}

export const workerOverhead: Benchmark = {
  id: "worker-overhead",
  heading: "Companion Worker proxy overhead",
  run,
};
