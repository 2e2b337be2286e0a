/**
 * @module
 * Benchmark: failover as the user waits for it. Time to the first token of `client.stream`
 * while the primary is out, through the emulator (its own process), in front of two paced
 * streaming upstreams (`servers/paced-stream.ts`): the primary hangs (accepts, never answers),
 * answers 503, or sends its headers at once and its first token only after 8 s; the fallback is
 * healthy. Three ways: the client with its defaults (no step timeout in the route, no breaker),
 * the client with hedging on the route, and the client calling the fallback directly (a route of
 * the fallback only), the floor. Every stream must end with the fallback's whole answer.
 *
 * The waits are real (no scaled clock): each path's calls run 16 at a time, so the 8 s case
 * costs about one wait per round, not one per call.
 */
import { callbackRecorder, createGatewayClient } from "../../src/client/index.ts";
import type { RouteInput } from "../../src/client/types.ts";
import { accountId, benchKey, gatewayId, primary, secondary } from "./fixtures.ts";
import { startEmulatorChild } from "./lab.ts";
import { type Call, runLoad } from "./load.ts";
import { markdownTable } from "./markdown.ts";
import { type NoisyFigure, noiseStatement, samplesByBlock } from "./noise.ts";
import {
  chunkPattern,
  type PacedMode,
  promptFor,
  startPacedStream,
} from "./servers/paced-stream.ts";
import { formatDeltaMs, formatMs, formatRatio, summarize } from "./stats.ts";
import { nextStreamId } from "./stream-probe.ts";
import type { BenchContext, Benchmark, BenchResult } from "./types.ts";

/** The slow primary's first token, in ms: the figure of issue 29. */
const slowFirstTokenMs = 8_000;
/** The hedged route's `afterMs`. */
const hedgeAfterMs = 1_000;
const concurrency = 16;

const outages: readonly { name: string; mode: PacedMode }[] = [
  { name: "primary hangs", mode: { kind: "hang" } },
  { name: "primary answers 503", mode: { kind: "unavailable" } },
  {
    name: `primary's first token after ${slowFirstTokenMs / 1000} s`,
    mode: { kind: "slow-first-token", firstTokenAfterMs: slowFirstTokenMs },
  },
];

type Path = "defaults" | "hedged" | "direct";

const labels: Record<Path, string> = {
  defaults: "client, defaults",
  hedged: `client, hedging on (\`hedge: { afterMs: ${hedgeAfterMs} }\`)`,
  direct: "client → fallback directly (route of the fallback only)",
};

/** One streamed call; resolves to its time to first text, in ms, and checks who answered. */
function streamCall(
  client: ReturnType<typeof createGatewayClient>,
  route: string,
  samples: number[],
): Call {
  return async () => {
    const id = nextStreamId();
    const started = performance.now();
    let first: number | undefined;
    let text = "";
    const stream = client.stream({ route, messages: [{ role: "user", content: promptFor(id) }] });
    for await (const delta of stream) {
      if (delta.type === "restart") text = text.slice(0, text.length - delta.discardedChars);
      if (delta.type !== "text") continue;
      first ??= performance.now();
      text += delta.text;
    }
    const answer = await stream.result;
    if (answer.served.provider !== secondary.provider) {
      throw new Error(`served by ${answer.served.provider}, not the fallback`);
    }
    if ((text.match(chunkPattern) ?? []).length === 0) throw new Error("no text reached the app");
    samples.push(first! - started);
  };
}

async function run(context: BenchContext): Promise<BenchResult> {
  const upstream = {
    primary: context.cleanup.add(await startPacedStream(), (server) => server.close()),
    fallback: context.cleanup.add(await startPacedStream(), (server) => server.close()),
  };
  context.progress("starting the emulator");
  const emulator = await startEmulatorChild(context.cleanup, {
    urls: { [primary.provider]: upstream.primary.url, [secondary.provider]: upstream.fallback.url },
  });
  const routes: Record<string, RouteInput> = {
    default: [primary, secondary],
    hedged: {
      steps: [primary, secondary],
      hedge: { afterMs: hedgeAfterMs, maxExtraCostPerHour: 1_000 },
    },
    direct: [secondary],
  };
  const client = createGatewayClient({
    accountId,
    gatewayId,
    baseUrl: emulator.url,
    routes,
    keyLookup: benchKey,
    prices: {
      [`${primary.provider}/${primary.model}`]: { input: 0.05, output: 0.08 },
      [`${secondary.provider}/${secondary.model}`]: { input: 0.15, output: 0.6 },
    },
    recorder: callbackRecorder(() => undefined),
  });
  const rounds = context.quick ? 1 : 3;
  const perRound = context.quick ? 4 : concurrency;
  const rows: string[][] = [];
  const medians: Record<string, Record<Path, number>> = {};
  const roundMedians: NoisyFigure[] = [];
  for (const outage of outages) {
    upstream.primary.setMode(outage.mode);
    const results = {} as Record<
      Path,
      { samples: number[]; failures: number; first?: string; ends: number[] }
    >;
    for (const [path, route] of [
      ["direct", "direct"],
      ["defaults", "default"],
      ["hedged", "hedged"],
    ] as const) {
      const samples: number[] = [];
      const call = streamCall(client, route, samples);
      await runLoad(call, { count: 2 });
      samples.length = 0;
      let failures = 0;
      let firstFailure: string | undefined;
      const ends: number[] = [];
      for (let round = 0; round < rounds; round++) {
        context.progress(`${outage.name}: ${labels[path]}, round ${round + 1}/${rounds}`);
        const result = await runLoad(call, { count: perRound, concurrency: perRound });
        failures += result.failures;
        firstFailure ??= result.firstFailure;
        ends.push(samples.length);
      }
      results[path] = {
        samples,
        failures,
        ends,
        ...(firstFailure ? { first: firstFailure } : {}),
      };
    }
    upstream.primary.clear();
    upstream.fallback.clear();
    roundMedians.push({
      figure: `the first token with the defaults (${outage.name})`,
      values: samplesByBlock(results.defaults.samples, results.defaults.ends)
        .filter((round) => round.length > 0)
        .map((round) => summarize(round).median),
      format: formatMs,
    });
    const floor = results.direct.samples.length ? summarize(results.direct.samples).median : NaN;
    medians[outage.name] = { defaults: NaN, hedged: NaN, direct: floor };
    for (const path of ["defaults", "hedged", "direct"] as const) {
      const { samples, failures, first } = results[path];
      const summary = samples.length > 0 ? summarize(samples) : undefined;
      medians[outage.name]![path] = summary?.median ?? NaN;
      rows.push([
        outage.name,
        labels[path],
        String(samples.length),
        failures === 0 ? "0" : `${failures} (${(first ?? "").slice(0, 80)})`,
        formatMs(summary?.median ?? NaN),
        formatMs(summary?.p99 ?? NaN),
        path === "direct" ? "—" : formatDeltaMs((summary?.median ?? NaN) - floor),
        path === "direct" ? "—" : formatRatio((summary?.median ?? NaN) / floor),
      ]);
    }
  }
  upstream.primary.setMode({ kind: "healthy" });
  return {
    ...describe(rows, medians, rounds * perRound, perRound),
    noise: noiseStatement(`rounds of ${perRound} streams at once`, roundMedians),
  };
}

function describe(
  rows: string[][],
  medians: Record<string, Record<Path, number>>,
  calls: number,
  atOnce: number,
): Omit<BenchResult, "noise"> {
  const table = markdownTable(
    [
      "outage",
      "path",
      "streams",
      "errors",
      "first token p50",
      "p99",
      "added vs fallback directly",
      "ratio",
    ],
    rows,
    ["left", "left", "right", "right", "right", "right", "right", "right"],
  );
  const slow = medians[outages[2]!.name]!;
  const hang = medians[outages[0]!.name]!;
  const body = [
    `\`client.stream\` through the emulator (its own process) on a route Groq (primary) → OpenAI (fallback), in front of two paced streaming upstreams (8 chunks 5 ms apart, in OpenAI's format), while the primary hangs (accepts the request, never answers), answers 503, or sends its headers at once and its first token after ${slowFirstTokenMs / 1000} s. The route sets no step timeout and the client no breaker: what an app gets with the defaults. *Hedging on*: the same route with \`hedge: { afterMs: ${hedgeAfterMs}, maxExtraCostPerHour }\` (priced, under its cap). *First token*: from \`client.stream()\` to the first text delta; every stream is checked to end with the fallback's answer. ${calls} streams per row, ${atOnce} at a time (the waits are real, not scaled: a round costs one wait), after 2 warm-up streams.`,
    "",
    table,
    "",
    `With the defaults a hanging primary costs ${formatMs(hang.defaults)} to the first token and a primary whose first token takes ${slowFirstTokenMs / 1000} s costs ${formatMs(slow.defaults)}: the client's \`firstTokenTimeoutMs\` (default 5 000 ms, from sending the attempt to its first text) fails the primary over to the next step. Before it (a 30 s first-token timeout counted from the headers, and nothing before them), the ${slowFirstTokenMs / 1000} s primary was waited for (8.4 s to the answer, issue 29) and a hanging one until the gateway's own 120 s timeout, the call's deadline.`,
  ].join("\n");
  return {
    body,
    headline: `first token during an outage, client defaults: primary hangs ${formatMs(hang.defaults)}, first token after ${slowFirstTokenMs / 1000} s ${formatMs(slow.defaults)}; hedging on: ${formatMs(hang.hedged)} / ${formatMs(slow.hedged)}; fallback directly ${formatMs(slow.direct)}`,
    targets: [],
  };
}

export const outageFirstToken: Benchmark = {
  id: "outage-first-token",
  heading: "Time to first token during an outage",
  run,
};
