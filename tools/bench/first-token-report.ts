/**
 * @module
 * The first-token benchmark's paths, targets and write-up (`first-token.ts` measures): the
 * table of every path, sequential and concurrent, what each layer adds over the one below, the
 * floors (a bare pass-through, a bare Worker), the client's own CPU to the first text, and the
 * noise over the run's parts.
 */
import { markdownTable } from "./markdown.ts";
import { noiseParts, noiseStatement, partsOf } from "./noise.ts";
import { portkeyVersion } from "./servers/portkey.ts";
import { formatDeltaMs, formatMs, formatRatio, summarize } from "./stats.ts";
import type { StreamCpu } from "./stream-cpu.ts";
import type { StreamSamples } from "./stream-probe.ts";
import type { BenchResult, TargetCheck } from "./types.ts";

export const concurrency = 16;
export const chunks = 8;
export const gapMs = 5;
/** Issue 29's targets, in ms added at the median. */
export const goals = { emulator: 0.5, worker: 1, client: 0.1, deliveryMs: 1 };

export type Path =
  | "direct"
  | "passThrough"
  | "emulator"
  | "client"
  | "forwarding"
  | "worker"
  | "workerClient"
  | "portkey";

/** Each path, its label, and the path it is measured against ("the layer below"). */
export const allPaths: readonly { path: Path; label: string; below?: Path }[] = [
  { path: "direct", label: "app → upstream (direct)" },
  {
    path: "passThrough",
    label: "app → bare pass-through (own process) → upstream",
    below: "direct",
  },
  { path: "emulator", label: "app → emulator → upstream", below: "direct" },
  { path: "client", label: "client → emulator → upstream", below: "emulator" },
  {
    path: "forwarding",
    label: "app → bare forwarding Worker (workerd) → emulator → upstream",
    below: "emulator",
  },
  { path: "worker", label: "app → Worker (workerd) → emulator → upstream", below: "emulator" },
  { path: "workerClient", label: "client → Worker → emulator → upstream", below: "worker" },
  { path: "portkey", label: "app → Portkey → upstream", below: "direct" },
];

export interface Measured {
  readonly name: string;
  readonly samples: Record<Path, StreamSamples>;
  /** Each path's first-token samples by block, for the noise. */
  readonly firstTokenBlocks: Record<Path, number[][]>;
}

/** What the emulator and the Worker add to the first token, over the sequential run's parts. */
function firstTokenNoise(sequential: Measured): string {
  const parts = (path: Path) =>
    partsOf(sequential.firstTokenBlocks[path], noiseParts, (a, b) => a.concat(b)).map(
      (samples) => summarize(samples).median,
    );
  const [direct, emulator, worker] = [parts("direct"), parts("emulator"), parts("worker")];
  return noiseStatement(
    `about ${Math.round(sequential.samples.direct.firstToken.length / noiseParts)} sequential streams per path`,
    [
      {
        figure: "the emulator's median first token over direct's",
        values: emulator.map((value, index) => value / direct[index]!),
        format: formatRatio,
      },
      {
        figure: "the Worker's over the emulator's",
        values: worker.map((value, index) => value / emulator[index]!),
        format: formatRatio,
      },
    ],
  );
}

/** The target each layer's row carries: what it may add to the first token at the median. */
const layerGoals: Partial<Record<Path, { goal: number; name: string }>> = {
  emulator: { goal: goals.emulator, name: "emulator adds to the first token" },
  worker: { goal: goals.worker, name: "Worker adds to the first token" },
  client: { goal: goals.client, name: "client adds to the first token" },
};

export function describe(
  measured: readonly Measured[],
  paths: typeof allPaths,
  portkeyNote: string | undefined,
  cpu: StreamCpu,
): BenchResult {
  const rows: string[][] = [];
  const targets: TargetCheck[] = [];
  for (const { name, samples } of measured) {
    const median = (path: Path, of: keyof StreamSamples) => summarize(samples[path][of]).median;
    const sequential = name === "sequential";
    for (const { path, label, below } of paths) {
      const first = summarize(samples[path].firstToken);
      const gaps = summarize(samples[path].gaps);
      const delivery = summarize(samples[path].delivery);
      const added = below === undefined ? Number.NaN : first.median - median(below, "firstToken");
      const layer = layerGoals[path];
      let target = "";
      if (layer !== undefined) {
        const met = added <= layer.goal;
        target = `≤ ${formatMs(layer.goal)}: ${met ? "met" : "**missed**"}`;
        if (sequential) {
          targets.push({
            name: layer.name,
            goal: `≤ ${formatMs(layer.goal)} at the median`,
            measured: formatDeltaMs(added),
            met,
          });
        }
      }
      if (path === "client") {
        const met = delivery.median <= goals.deliveryMs;
        target += `; chunk ≤ ${formatMs(goals.deliveryMs)}: ${met ? "met" : "**missed**"}`;
        if (sequential) {
          targets.push({
            name: "a chunk written upstream reaches the app (client → emulator)",
            goal: `≤ ${formatMs(goals.deliveryMs)} at the median`,
            measured: formatMs(delivery.median),
            met,
          });
        }
      }
      rows.push([
        name,
        label,
        String(first.count),
        formatMs(first.median),
        formatMs(first.p99),
        path === "direct" ? "—" : formatDeltaMs(first.median - median("direct", "firstToken")),
        below === undefined || below === "direct" ? "—" : formatDeltaMs(added),
        formatMs(gaps.median),
        formatMs(gaps.p99),
        formatMs(delivery.median),
        formatMs(delivery.p99),
        path === "direct" ? "—" : formatDeltaMs(delivery.median - median("direct", "delivery")),
        target || "—",
      ]);
    }
  }
  const table = markdownTable(
    [
      "load",
      "path",
      "streams",
      "first token p50",
      "p99",
      "added vs direct (p50)",
      "added by this layer (p50)",
      "chunk gap p50",
      "p99",
      "chunk write → app p50",
      "p99",
      "added vs direct (p50)",
      "target (p50)",
    ],
    rows,
    ["left", "left", ...Array<"right">(10).fill("right"), "left"],
  );
  const body = [
    `Streamed answers of one paced upstream (a loopback server in this process speaking OpenAI's stream format: ${chunks} text chunks, the first written with the headers, then one every ${gapMs} ms, each write time-stamped), read up to eight ways in interleaved blocks after a warm-up, sequential and at ${concurrency} streams in flight: \`fetch\` straight to the upstream; \`fetch\` through a bare pass-through in its own process; \`fetch\` to the emulator's universal endpoint (one step; the built emulator in a child process, what \`stepwise dev\` runs); \`client.stream\` on the emulator; \`fetch\` through a bare forwarding Worker in workerd in front of the emulator; \`fetch\` and \`client.stream\` through the companion Worker in workerd (app token, keys injected from KV, the answer scrubbed, one Analytics Engine point) in front of the emulator; \`fetch\` to Portkey's gateway (one target, \`custom_host\` the upstream). *First token*: from sending the request to reading the first chunk. *Chunk gap*: between consecutive chunks as the app read them (${gapMs} ms apart upstream). *Chunk write → app*: from the upstream's write of a chunk to the app reading it, every chunk: buffering anywhere on the way shows here. *Added by this layer*: over the path one layer down (the emulator for the client and the Worker, the Worker for the client on it).`,
    "",
    table,
    "",
    ...(portkeyNote === undefined
      ? []
      : [
          `Portkey is not in the table: its gateway (${portkeyVersion()}) did not stream this answer (${portkeyNote.replace(/http:\/\/127\.0\.0\.1:\d+/, "").slice(0, 160)}); when this was looked into, its log said \`TypeError: immutable\` (it sets a header on the upstream's \`fetch\` response, whose headers are immutable in Node). It streams nothing through \`custom_host\` here, the mock providers' streams included.`,
          "",
        ]),
    floorsParagraph((path) => summarize(measured[0]!.samples[path].firstToken).median),
    "",
    `**The client's own CPU**, \`fetch\` stubbed out (${cpu.streams} eight-chunk streams a side read to their end, interleaved, process CPU time; \`tools/bench/stream-cpu.ts\`): \`client.stream\` ${cpu.client.toFixed(1)} µs against ${cpu.raw.toFixed(1)} µs for a raw caller reading and decoding the same answer, ${formatDeltaMs((cpu.client - cpu.raw) / 1000)} per stream, all of it at most what the client can add to the first token on an idle core (the route compiled into a universal body, which step served read from \`cf-aig-step\`, each chunk's JSON parsed by its provider's stream format, the first-token timer, the deltas queued, the call's event built). The client rows above share this process with the upstream and the load generator, so their wall-clock figure also carries the wake-ups between them.`,
    "",
    "Targets (issue 29), sequential, at the median: the emulator adds ≤ 0.5 ms to the first token over direct, the Worker ≤ 1 ms over the emulator, the client ≤ 0.1 ms over a raw `fetch` of the emulator; a chunk written upstream reaches the app through the client and the emulator within 1 ms. The rows at 16 concurrent streams show the same figures under load; their targets are printed beside them but only the sequential ones count.",
  ].join("\n");
  const seq = measured[0]!.samples;
  const medianOf = (path: Path) => summarize(seq[path].firstToken).median;
  return {
    body,
    headline: `first token added at the median — emulator ${formatDeltaMs(medianOf("emulator") - medianOf("direct"))} (a bare pass-through ${formatDeltaMs(medianOf("passThrough") - medianOf("direct"))}), Worker ${formatDeltaMs(medianOf("worker") - medianOf("emulator"))} (a bare Worker ${formatDeltaMs(medianOf("forwarding") - medianOf("emulator"))}), client ${formatDeltaMs(medianOf("client") - medianOf("emulator"))}, Portkey ${portkeyNote === undefined ? formatDeltaMs(medianOf("portkey") - medianOf("direct")) : "does not stream"}; a chunk reaches the app through client and emulator in ${formatMs(summarize(seq.client.delivery).median)}`,
    targets,
    noise: firstTokenNoise(measured[0]!),
  };
}

/**
 * What the floors show, sequential medians: the extra process any gateway costs (the bare
 * pass-through) and what workerd itself costs (the bare forwarding Worker), beside what the
 * emulator and the Stepwise Worker add over them.
 */
function floorsParagraph(medianOf: (path: Path) => number): string {
  const over = (path: Path, below: Path) => formatDeltaMs(medianOf(path) - medianOf(below));
  return [
    `**The floors** (sequential medians). A bare pass-through in a process of its own (\`tools/bench/servers/pass-through.mjs\`: \`node:http\` in and out, no routing, logging or keys) adds ${over("passThrough", "direct")} to the first token over direct: two loopback hops and a second process to wake on a shared machine, the least any gateway in its own process adds here. The emulator adds ${over("emulator", "passThrough")} over that floor (${over("emulator", "direct")} over direct).`,
    `A bare forwarding Worker in workerd (\`tools/bench/servers/forwarding-worker.ts\`: \`fetch(request)\` to the emulator) adds ${over("forwarding", "emulator")} over the emulator; the Stepwise Worker adds ${over("worker", "forwarding")} over that (app token, the limiter's Durable Object, keys from KV, the scrubber's stream, an Analytics Engine point).`,
  ].join(" ");
}
