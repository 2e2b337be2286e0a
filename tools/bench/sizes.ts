/**
 * @module
 * Benchmark 6: sizes. The thin client's entry bundled, minified and gzipped (the logic of
 * `tools/scripts/client-size.ts`, imported), and the companion Worker's bundle as
 * `wrangler deploy --dry-run` builds it: raw and gzipped, as we measure them and as wrangler
 * reports its upload.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { buildWorkerBundle } from "../../src/demo/local-worker.ts";
import { measureClientBundle } from "../scripts/client-size.ts";
import { markdownTable } from "./markdown.ts";
import { formatBytes, formatCount } from "./stats.ts";
import { parseWranglerUpload } from "./tool-output.ts";
import type { BenchContext, Benchmark, BenchResult } from "./types.ts";

async function run(context: BenchContext): Promise<BenchResult> {
  context.progress("bundling the client (esbuild)");
  const client = await measureClientBundle();
  if (client.externalImports.length > 0) {
    throw new Error(`the client bundle imports ${client.externalImports.join(", ")}`);
  }
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
  const rows = [
    [
      "client (`src/client/index.ts`), esbuild, minified",
      `${client.inputs.length} modules`,
      formatBytes(client.minifiedBytes),
      formatBytes(client.gzippedBytes),
      "none (`fetch` only)",
    ],
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
  const table = markdownTable(
    ["artifact", "inputs", "raw", "gzipped (level 9)", "depends on"],
    rows,
    ["left", "right", "right", "right", "left"],
  );
  const body = [
    "The client as `npm run size` measures it (esbuild, neutral platform, ES2022, minified; the build fails if anything is left external). The Worker as `npm run worker:bundle` builds it (minified, per `wrangler.jsonc`): the file Pulumi uploads.",
    "",
    table,
    "",
    `Exact bytes: client ${formatCount(client.minifiedBytes)} minified, ${formatCount(client.gzippedBytes)} gzipped; Worker ${formatCount(workerRaw)} raw, ${formatCount(workerGzip)} gzipped.`,
  ].join("\n");
  return {
    body,
    headline: `client ${formatBytes(client.gzippedBytes)} gzipped (${formatBytes(client.minifiedBytes)} minified); Worker ${formatBytes(workerGzip)} gzipped (${formatBytes(workerRaw)} raw)`,
    targets: [],
  };
}

export const sizes: Benchmark = { id: "sizes", heading: "Sizes", run };
