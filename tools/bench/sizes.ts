/**
 * @module
 * Benchmark 6: sizes. The thin client as an app pays for it (the logic of
 * `tools/scripts/client-size.ts`, imported): each consumer (only `chat`, `chat` and `stream`, only
 * `stream`, the breaker, `createGatewayFetch`) bundled into one file from the built package, as
 * wrangler bundles a Worker (the budget's measure), and bundled with code splitting: the core it
 * loads before its first call and what it loads on demand, gzipped. Then the companion Worker's bundle as
 * `wrangler deploy --dry-run` builds it: raw and gzipped, as we measure them and as wrangler
 * reports its upload; the `node_modules/` an empty project gets from installing the packed package.
 * Last, the built CLI's start-up: `stepwise --help`, best of seven runs, each
 * beside a bare `node -e 0`.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { buildWorkerBundle } from "../../src/demo/local-worker.ts";
import {
  type ClientBundleReport,
  type ClientConsumer,
  clientConsumers,
  measureClientBundle,
  measureOneFile,
  oneFileBudgetBytes,
} from "../scripts/client-size.ts";
import { installedSizeBudgetBytes, measureInstall } from "./installed-size.ts";
import { markdownTable } from "./markdown.ts";
import { noiseStatement } from "./noise.ts";
import { measureStartup } from "./startup-time.ts";
import { formatBytes, formatCount, formatRatio, quantile } from "./stats.ts";
import { parseWranglerUpload } from "./tool-output.ts";
import type { BenchContext, Benchmark, BenchResult } from "./types.ts";
import {
  groupBundleInputs,
  readBundleInputs,
  unwantedBundleInputs,
} from "./worker-bundle-inputs.ts";

/** `stepwise --help` start-up: at most this long, and at most this many times a bare `node -e 0`. */
const startupBudgetMs = 250;
const startupBudgetRatio = 2;
const root = fileURLToPath(new URL("../..", import.meta.url));

const consumerNames: Record<ClientConsumer, string> = {
  chat: "`createGatewayClient` + `chat`",
  "chat-and-stream": "`createGatewayClient` + `chat` and `stream` (the budget's)",
  stream: "`createGatewayClient` + `stream`",
  breaker: "`chat` + `createCircuitBreaker` (`stepwise-gateway/client/breaker`)",
  fetch: "`createGatewayFetch` (`stepwise-gateway/client/fetch`)",
};

async function run(context: BenchContext): Promise<BenchResult> {
  context.progress("bundling the client's consumers (one file from the package; split)");
  const oneFile = await measureOneFile(clientConsumers);
  const reports: [ClientConsumer, ClientBundleReport][] = [];
  for (const consumer of clientConsumers) {
    const report = await measureClientBundle(consumer);
    if (report.externalImports.length > 0) {
      throw new Error(`the client bundle imports ${report.externalImports.join(", ")}`);
    }
    reports.push([consumer, report]);
  }
  const client = reports[0]![1];
  const budgeted = oneFile.find((report) => report.consumer === "chat-and-stream")!;
  context.progress("bundling the Worker (wrangler deploy --dry-run)");
  const bundle = context.cleanup.add(await buildWorkerBundle(), (built) => built.remove());
  const files = (await readdir(bundle.directory)).filter((name) => name.endsWith(".js"));
  let workerRaw = 0;
  let workerGzip = 0;
  for (const name of files) {
    const contents = await readFile(path.join(bundle.directory, name));
    workerRaw += (await stat(path.join(bundle.directory, name))).size;
    workerGzip += gzipSync(contents, { level: 9 }).byteLength;
  }
  const wrangler = parseWranglerUpload(bundle.output);
  const workerInputs = await readBundleInputs(bundle.metafilePath);
  const unwanted = unwantedBundleInputs(workerInputs);
  context.progress("installing the packed package into an empty project");
  const installed = await measureInstall(root);
  context.progress("measuring `stepwise --help` start-up");
  const startups = await measureStartup(["bin/stepwise.js", "--help"], root, 7);
  const startup = Math.min(...startups.wallMs);
  const bare = Math.min(...startups.bareWallMs);
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const oneFileTable = markdownTable(
    ["an app using", "one file: minified", "one file: gzipped", "with `--keep-names`: gzipped"],
    oneFile.map((report) => [
      consumerNames[report.consumer],
      formatBytes(report.minifiedBytes),
      formatBytes(report.gzippedBytes),
      formatBytes(report.keepNamesGzippedBytes),
    ]),
    ["left", "right", "right", "right"],
  );
  const clientTable = markdownTable(
    [
      "an app using",
      "core: modules",
      "core: minified",
      "core: gzipped",
      "on demand: gzipped",
      "by the first answer¹: gzipped",
      "every chunk: gzipped",
    ],
    reports.map(([consumer, report]) => {
      const lazy = report.chunks.filter((chunk) => !chunk.initial);
      return [
        consumerNames[consumer],
        String(report.inputs.length),
        formatBytes(report.minifiedBytes),
        formatBytes(report.gzippedBytes),
        `${formatBytes(report.totalGzippedBytes - report.gzippedBytes)} in ${lazy.length} chunks`,
        formatBytes(report.firstAnswerGzippedBytes),
        formatBytes(report.totalGzippedBytes),
      ];
    }),
    ["left", "right", "right", "right", "right", "right", "right"],
  );
  const lazyTable = markdownTable(
    [
      "loaded on demand by an app using `chat` (of the provider formats, only the route's)",
      "gzipped",
    ],
    client.chunks
      .filter((chunk) => !chunk.initial && chunk.inputs.length > 0)
      .map((chunk) => [
        chunk.inputs.map((input) => `\`${input.replace(/^src\//, "")}\``).join(", "),
        formatBytes(chunk.gzippedBytes),
      ]),
    ["left", "right"],
  );
  const rows = [
    [
      `companion Worker, \`wrangler deploy --dry-run\` (${files.join(", ")})`,
      "—",
      formatBytes(workerRaw),
      formatBytes(workerGzip),
      "zod; `src/config`, `src/providers`, `src/errors`",
    ],
  ];
  if (wrangler !== undefined) {
    rows.push([
      "companion Worker, as wrangler reports its upload",
      "—",
      formatBytes(wrangler.raw),
      formatBytes(wrangler.gzip),
      "",
    ]);
  }
  rows.push([
    "`npm install stepwise-gateway` into an empty project: its `node_modules/`",
    `${installed.packages} packages`,
    formatBytes(installed.bytes),
    "—",
    "the optional peers (`cloudflare`, Pulumi, wrangler, miniflare) not installed",
  ]);
  const table = markdownTable(
    ["artifact", "inputs", "raw", "gzipped (level 9)", "depends on"],
    rows,
    ["left", "right", "right", "right", "left"],
  );
  const workerInputsTable = markdownTable(
    ["in the Worker's `index.js` (esbuild's metafile)", "files", "minified bytes"],
    groupBundleInputs(workerInputs).map((group) => [
      group.name.startsWith("src/") ? `\`${group.name}\`` : `${group.name} (npm)`,
      String(group.files),
      formatCount(group.bytes),
    ]),
    ["left", "right", "right"],
  );
  const body = [
    "The client as `npm run size` measures it. *One file*: the package as `npm run build` writes it and an app's module bundled into one file by `esbuild --bundle --minify` (neutral platform, ES2022), as wrangler bundles a Worker: what loads on demand is in it too. The budget is this figure for an app that chats and streams: at most 20 kB gzipped (level 9). wrangler keeps names by default, which the last column adds.",
    "",
    oneFileTable,
    "",
    "*Split*: the same module bundled from the sources with code splitting, as a browser app's bundler loads it (the build fails if anything is left external). The *core* is what loads before the first call: the app's chunk and the chunks it imports statically, each gzipped (level 9) and summed. What an app that only chats never runs loads on demand (`src/client/on-demand/`): the stream reader (with eventsource-parser, inlined) and each provider's format. No run-time dependency: `fetch` only.",
    "",
    clientTable,
    "",
    "¹ What an app has fetched by its first healthy answer on a route with one OpenAI step: the core and the provider's format (with the stream reader, and through it every format's stream reader, for an app that streams).",
    "",
    lazyTable,
    "",
    "The Worker as `npm run worker:bundle` builds it (minified, per `wrangler.jsonc`): the file Pulumi uploads.",
    "",
    table,
    "",
    "What the Worker's bundle carries, from the metafile `wrangler deploy --dry-run --metafile` writes (bytes of each input in the minified output, before gzip). No YAML parser, config parser or zod (the Worker checks its view and bodies by hand): test/e2e/worker-bundle.test.ts fails if one comes back.",
    "",
    workerInputsTable,
    "",
    `Exact bytes: client in one file (chat and stream) ${formatCount(budgeted.minifiedBytes)} minified, ${formatCount(budgeted.gzippedBytes)} gzipped (${formatCount(budgeted.keepNamesGzippedBytes)} with \`--keep-names\`); split, the core of an app using \`chat\` ${formatCount(client.gzippedBytes)} gzipped (${formatCount(client.totalGzippedBytes)} with every chunk); Worker ${formatCount(workerRaw)} raw, ${formatCount(workerGzip)} gzipped.`,
    "",
    `CLI start-up (the built \`bin/stepwise.js\` → \`dist/\`): \`stepwise --help\` took **${seconds(startup)}** at best of seven runs (median ${seconds(quantile(startups.wallMs, 0.5))}, CPU ${seconds(quantile(startups.cpuMs, 0.5))} at the median); a bare \`node -e 0\` run between them took ${seconds(bare)} at best (median ${seconds(quantile(startups.bareWallMs, 0.5))}): **${(startup / bare).toFixed(2)}×**. Commands load their heavy modules when they run, not at start-up.`,
  ].join("\n");
  return {
    body,
    headline: `\`stepwise --help\` ${seconds(startup)} (${(startup / bare).toFixed(2)}× \`node -e 0\`); client in one file ${formatBytes(budgeted.gzippedBytes)} gzipped (chat and stream; split, the core ${formatBytes(client.gzippedBytes)}); Worker ${formatBytes(workerGzip)} gzipped (${formatBytes(workerRaw)} raw)`,
    targets: [
      {
        name: "client in one file (chat and stream, esbuild --bundle --minify), min+gz",
        goal: `≤ ${formatBytes(oneFileBudgetBytes)}`,
        measured: formatBytes(budgeted.gzippedBytes),
        met: budgeted.gzippedBytes <= oneFileBudgetBytes,
      },
      {
        name: "`npm install` of the package into an empty project: node_modules",
        goal: `≤ ${formatBytes(installedSizeBudgetBytes)}`,
        measured: formatBytes(installed.bytes),
        met: installed.bytes <= installedSizeBudgetBytes,
      },
      {
        name: "Worker bundle: no YAML parser, config parser or zod",
        goal: "none",
        measured: unwanted.length === 0 ? "none" : `${unwanted.length} inputs, e.g. ${unwanted[0]}`,
        met: unwanted.length === 0,
      },
      {
        name: "`stepwise --help` start-up (best of 7)",
        goal: `≤ ${seconds(startupBudgetMs)} and ≤ ${startupBudgetRatio}× \`node -e 0\``,
        measured: `${seconds(startup)} (${(startup / bare).toFixed(2)}×)`,
        met: startup <= startupBudgetMs && startup <= startupBudgetRatio * bare,
      },
    ],
    noise: `none in the bytes: the same commit bundles to the same bytes. Start-up ${noiseStatement(
      "one run each of `stepwise --help` and `node -e 0`",
      [
        {
          figure: "`stepwise --help` over `node -e 0`",
          values: startups.wallMs.map((wall, index) => wall / startups.bareWallMs[index]!),
          format: formatRatio,
        },
      ],
    )}`,
  };
}

export const sizes: Benchmark = { id: "sizes", heading: "Sizes", run };
