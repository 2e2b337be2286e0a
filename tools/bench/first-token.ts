/**
 * @module
 * Benchmark: time to first token, layer by layer. One paced streaming upstream
 * (`servers/paced-stream.ts`: 8 chunks, the first with the headers, then one every 5 ms) is read
 * six ways, in interleaved blocks, sequential and at 16 concurrent streams: directly; through the
 * emulator (its own process); through the client on the emulator; through the companion Worker
 * (workerd) and the emulator, raw and with the client; through Portkey's gateway. Per path: the
 * time from the request to the first chunk, the gaps between chunks as the app read them, and
 * how long each chunk took from the upstream's write to the app, with what each layer adds over
 * direct and over the path below it.
 */
import { callbackRecorder, createGatewayClient } from "../../src/client/index.ts";
import { compileUniversalRequest } from "../../src/routes/index.ts";
import {
  allPaths,
  chunks,
  concurrency,
  describe,
  gapMs,
  type Measured,
  type Path,
} from "./first-token-report.ts";
import { accountId, benchKey, gatewayId, secondary } from "./fixtures.ts";
import { startEmulatorChild, startPassThroughChild, startPortkeyChild } from "./lab.ts";
import { type Call, runInterleaved } from "./load.ts";
import { samplesByBlock } from "./noise.ts";
import { startForwardingWorker } from "./servers/forwarding-worker.ts";
import { promptFor, startPacedStream } from "./servers/paced-stream.ts";
import { portkeyFallbackConfig } from "./servers/portkey.ts";
import { startWorkerFront } from "./servers/worker-front.ts";
import { measureStreamCpu } from "./stream-cpu.ts";
import {
  clientStreamCall,
  createProbe,
  rawStreamCall,
  type StreamProbe,
  type StreamSamples,
} from "./stream-probe.ts";
import type { BenchContext, Benchmark, BenchResult } from "./types.ts";

function universal(id: number, withKeys: boolean): string {
  const request = { messages: [{ role: "user", content: promptFor(id) }], stream: true } as const;
  return JSON.stringify(
    compileUniversalRequest(
      { steps: [secondary] },
      request,
      withKeys ? { keyLookup: benchKey } : {},
    ),
  );
}

async function run(context: BenchContext): Promise<BenchResult> {
  const upstream = context.cleanup.add(await startPacedStream({ chunks, gapMs }), (server) =>
    server.close(),
  );
  const upstreams = { groq: upstream.url, openai: upstream.url };
  context.progress("starting the emulator, Portkey and the Worker");
  const [emulator, portkey] = await Promise.all([
    startEmulatorChild(context.cleanup, { urls: upstreams }),
    startPortkeyChild(context.cleanup),
  ]);
  const worker = await startWorkerFront(context.cleanup, emulator.url);
  const passThrough = await startPassThroughChild(context.cleanup, upstream.url);
  const forwardingUrl = await startForwardingWorker(context.cleanup, emulator.url);
  const json = { "content-type": "application/json" };
  const gatewayPath = `/v1/${accountId}/${gatewayId}`;
  const clientFor = (baseUrl: string, token?: string) =>
    createGatewayClient({
      accountId,
      gatewayId,
      baseUrl,
      routes: { direct: [secondary] },
      recorder: callbackRecorder(() => undefined),
      ...(token === undefined ? { keyLookup: benchKey } : { gatewayToken: token }),
    });
  const portkeyConfig = portkeyFallbackConfig([
    {
      provider: "openai",
      apiKey: benchKey("openai"),
      customHost: `${upstream.url}v1`,
      model: secondary.model,
    },
  ]);
  const openAiBody = (id: number) =>
    JSON.stringify({
      model: secondary.model,
      messages: [{ role: "user", content: promptFor(id) }],
      stream: true,
    });
  const callsFor = (probes: Record<Path, StreamProbe>): Record<Path, Call> => ({
    direct: rawStreamCall(probes.direct, (id) => ({
      url: `${upstream.url}v1/chat/completions`,
      headers: { ...json, authorization: `Bearer ${benchKey("openai")}` },
      body: openAiBody(id),
    })),
    passThrough: rawStreamCall(probes.passThrough, (id) => ({
      url: `${passThrough.url}/v1/chat/completions`,
      headers: { ...json, authorization: `Bearer ${benchKey("openai")}` },
      body: openAiBody(id),
    })),
    forwarding: rawStreamCall(probes.forwarding, (id) => ({
      url: `${forwardingUrl}${gatewayPath}`,
      headers: json,
      body: universal(id, true),
    })),
    emulator: rawStreamCall(probes.emulator, (id) => ({
      url: `${emulator.url}${gatewayPath}`,
      headers: json,
      body: universal(id, true),
    })),
    client: clientStreamCall(probes.client, emulatorClient, "direct"),
    worker: rawStreamCall(probes.worker, (id) => ({
      url: `${worker.url}${gatewayPath}`,
      headers: { ...json, "cf-aig-authorization": `Bearer ${worker.appToken}` },
      body: universal(id, false),
    })),
    workerClient: clientStreamCall(probes.workerClient, workerClient, "direct"),
    portkey: rawStreamCall(probes.portkey, (id) => ({
      url: `${portkey.url}/v1/chat/completions`,
      headers: { ...json, "x-portkey-config": portkeyConfig },
      body: openAiBody(id),
    })),
  });
  const emulatorClient = clientFor(emulator.url);
  const workerClient = clientFor(worker.url, worker.appToken);
  const loads = [
    { name: "sequential", concurrency: 1, count: context.quick ? 60 : 400, blocks: 4 },
    {
      name: `${concurrency} concurrent streams`,
      concurrency,
      count: context.quick ? 160 : 1_600,
      blocks: 4,
    },
  ];
  // Portkey's gateway answers some streamed requests with a 500 (its stream handler throws under
  // Node); it is measured only where one probe stream goes through.
  let portkeyNote: string | undefined;
  try {
    await callsFor(
      Object.fromEntries(allPaths.map(({ path }) => [path, createProbe(upstream)])) as Record<
        Path,
        StreamProbe
      >,
    ).portkey(0);
  } catch (error) {
    portkeyNote = error instanceof Error ? error.message : String(error);
  }
  const paths = allPaths.filter(({ path }) => path !== "portkey" || portkeyNote === undefined);
  const measured: Measured[] = [];
  for (const load of loads) {
    const probes = Object.fromEntries(
      paths.map(({ path }) => [path, createProbe(upstream)]),
    ) as Record<Path, StreamProbe>;
    upstream.clear();
    const all = callsFor(probes);
    const active = Object.fromEntries(paths.map(({ path }) => [path, all[path]])) as Record<
      Path,
      Call
    >;
    // Each path's sample count after each of its blocks: the noise's parts.
    const blockEnds = Object.fromEntries(paths.map(({ path }) => [path, [] as number[]])) as Record<
      Path,
      number[]
    >;
    const { sides } = await runInterleaved(active, {
      count: load.count,
      blocks: load.blocks,
      warmup: context.quick ? 10 : 40,
      concurrency: load.concurrency,
      // Warm-up streams are checked but not kept.
      beforeBlock: () => {
        for (const probe of Object.values<StreamProbe>(probes)) probe.measuring = true;
      },
      onBlock: (done, total, path) => {
        blockEnds[path as Path].push(probes[path as Path].samples.firstToken.length);
        context.progress(`${load.name}: block ${done}/${total}`);
      },
    });
    for (const { path, label } of paths) {
      if (sides[path].failures > 0) {
        throw new Error(
          `${label}: ${sides[path].failures} streams failed: ${sides[path].firstFailure}`,
        );
      }
    }
    measured.push({
      name: load.name,
      samples: Object.fromEntries(paths.map(({ path }) => [path, probes[path].samples])) as Record<
        Path,
        StreamSamples
      >,
      firstTokenBlocks: Object.fromEntries(
        paths.map(({ path }) => [
          path,
          samplesByBlock(probes[path].samples.firstToken, blockEnds[path]),
        ]),
      ) as Record<Path, number[][]>,
    });
  }
  context.progress("the client's own CPU to the first text (fetch stubbed)");
  const cpu = await measureStreamCpu(context.quick ? 4_000 : 20_000, context.progress);
  return describe(measured, paths, portkeyNote, cpu);
}

export const firstToken: Benchmark = {
  id: "first-token",
  heading: "Time to first token, layer by layer",
  run,
};
