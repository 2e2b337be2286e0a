/**
 * @module
 * Reports the thin client's size as an app pays for it, two ways.
 *
 * *One file*: the package as users install it (`npm run build`'s JavaScript, built into a
 * temporary folder) and a consumer of it bundled into one file, `esbuild --bundle --minify`, as
 * wrangler bundles a Worker: everything the app may run is in it, what loads on demand too. This
 * is the budget's measure (at most 20 kB gzipped for a consumer that chats and streams). The
 * figure with `--keep-names` is printed beside it: wrangler keeps names by default.
 *
 * *Split*: a consumer that imports only what it uses (by default `createGatewayClient`, with
 * `chat` and `stream`) bundled from the sources for a neutral platform (no Node built-ins, no
 * packages), minified, with code splitting on, as a browser app's bundler splits it. The *core*
 * is what loads before the first call: the consumer's chunk and every chunk it imports
 * statically, each gzipped (level 9) and summed. What loads on demand (`src/client/on-demand/`:
 * the stream reader, each provider's format) is listed apart, chunk by chunk. It also lists any
 * import left external, which must be none: the client depends on `fetch` and web platform APIs
 * only (eventsource-parser is bundled in).
 *
 * Usage: `tsx tools/scripts/client-size.ts [--json] [--consumer chat|chat-and-stream|stream|breaker|fetch]
 * [--max-gzip-bytes <n>]` (exit code 1 when the bundle imports anything external or the one-file
 * bundle is over the budget).
 */

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";
import { formatBytes } from "../bench/stats.ts";
import { buildJavaScript } from "../build/build.ts";

/** One output file of the split bundle. */
export interface ClientChunk {
  readonly file: string;
  /** True when it loads before the first call; false when loaded by a dynamic import. */
  readonly initial: boolean;
  readonly minifiedBytes: number;
  readonly gzippedBytes: number;
  /** Repository-relative paths of the modules in it. */
  readonly inputs: readonly string[];
}

/** What `measureClientBundle` found. */
export interface ClientBundleReport {
  /** The consumer's name, or the entry bundled whole. */
  readonly consumer: string;
  /** Repository-relative paths of the modules in the core (the initial chunks). */
  readonly inputs: readonly string[];
  /** Imports esbuild left unresolved in any chunk; must be empty. */
  readonly externalImports: readonly string[];
  /** The core: initial chunks, minified. */
  readonly minifiedBytes: number;
  /** The core: initial chunks, each gzipped, summed. */
  readonly gzippedBytes: number;
  /** Every chunk, initial ones first. */
  readonly chunks: readonly ClientChunk[];
  /** Every chunk (core and on first use), each gzipped, summed. */
  readonly totalGzippedBytes: number;
  /**
   * What an app has loaded by its first healthy answer, gzipped: the core and one provider's
   * format (OpenAI's), with what they import (for a consumer that streams, also the stream reader).
   */
  readonly firstAnswerGzippedBytes: number;
}

/** Modules a client with one OpenAI route loads by its first healthy `chat` answer, beyond the core. */
const firstAnswerModules = ["src/providers/openai.ts"];

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));
const setup = `const client = createGatewayClient({ accountId: "a", gatewayId: "g", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } });
const messages = [{ role: "user", content: "Hi" }];`;

/** Where a consumer imports an entry of the client from: the sources, or the built package. */
type EntryPath = (entry: "index" | "breaker" | "fetch") => string;

const sourceEntry: EntryPath = (entry) => `${repositoryRoot}src/client/${entry}.ts`;

/**
 * Consumers by name: an app's module using one part of the client. `chat` is the main entry's
 * promise: `createGatewayClient` (its client's `chat` and `stream` come with it), re-exported so
 * that no app code is counted; `stream` is an app that calls it; `chat-and-stream` one that does
 * both (the budget's consumer).
 */
const consumerSources = {
  chat: (from: EntryPath) => `export { createGatewayClient } from "${from("index")}";`,
  "chat-and-stream": (from: EntryPath) => `import { createGatewayClient } from "${from("index")}";
${setup}
export const answer = client.chat({ route: "default", messages });
export const streamed = client.stream({ route: "default", messages }).collect();`,
  stream: (from: EntryPath) => `import { createGatewayClient } from "${from("index")}";
${setup}
export const answer = client.stream({ route: "default", messages }).collect();`,
  breaker: (from: EntryPath) => `import { createGatewayClient } from "${from("index")}";
import { createCircuitBreaker } from "${from("breaker")}";
const client = createGatewayClient({ accountId: "a", gatewayId: "g", breaker: createCircuitBreaker(), routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } });
export const answer = client.chat({ route: "default", messages: [{ role: "user", content: "Hi" }] });`,
  fetch: (from: EntryPath) => `import { createGatewayFetch } from "${from("fetch")}";
export const fetch = createGatewayFetch({ accountId: "a", gatewayId: "g" });`,
} as const;

export type ClientConsumer = keyof typeof consumerSources;

/** The consumers' names, in the order reports list them. */
export const clientConsumers: readonly ClientConsumer[] = Object.keys(
  consumerSources,
) as ClientConsumer[];

/** What `measureOneFile` found: the consumer bundled into one file from the built package. */
export interface OneFileReport {
  readonly consumer: ClientConsumer;
  readonly minifiedBytes: number;
  /** `esbuild --bundle --minify`, gzipped (level 9): the budget's measure. */
  readonly gzippedBytes: number;
  /** The same with `--keep-names` (wrangler's default), gzipped. */
  readonly keepNamesGzippedBytes: number;
}

/** A consumer's source text, resolved from `resolveDir`, bundled into one ES module. */
async function bundleOne(contents: string, resolveDir: string, keepNames: boolean) {
  const result = await build({
    stdin: { contents, loader: "ts", resolveDir },
    bundle: true,
    minify: true,
    keepNames,
    platform: "neutral",
    format: "esm",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.contents;
}

/**
 * Builds the package's JavaScript (as `npm run build` does, into a temporary folder) and bundles
 * each consumer of it into one file, minified, as wrangler bundles a Worker.
 * @example const [{ gzippedBytes }] = await measureOneFile(["chat-and-stream"]);
 */
export async function measureOneFile(
  consumers: readonly ClientConsumer[] = ["chat-and-stream"],
): Promise<OneFileReport[]> {
  // Inside the repository, so that the package's own dependencies resolve as in an app's project.
  const cache = path.join(repositoryRoot, "node_modules", ".cache");
  await mkdir(cache, { recursive: true });
  const built = await mkdtemp(path.join(cache, "stepwise-client-size-"));
  try {
    await buildJavaScript(built);
    const fromPackage: EntryPath = (entry) => path.join(built, "client", `${entry}.js`);
    const reports: OneFileReport[] = [];
    for (const consumer of consumers) {
      const contents = consumerSources[consumer](fromPackage);
      const plain = await bundleOne(contents, built, false);
      const named = await bundleOne(contents, built, true);
      reports.push({
        consumer,
        minifiedBytes: plain.byteLength,
        gzippedBytes: gzipSync(plain, { level: 9 }).byteLength,
        keepNamesGzippedBytes: gzipSync(named, { level: 9 }).byteLength,
      });
    }
    return reports;
  } finally {
    await rm(built, { recursive: true, force: true });
  }
}

const relative = (path: string) => path.replace(/^consumer:/, "");

/** The chunks the entry's chunk imports statically, transitively, itself included. */
function initialChunks(metafile: Metafile, entryChunk: string): Set<string> {
  const initial = new Set<string>();
  const pending = [entryChunk];
  while (pending.length > 0) {
    const chunk = pending.pop()!;
    if (initial.has(chunk)) continue;
    initial.add(chunk);
    for (const imported of metafile.outputs[chunk]?.imports ?? []) {
      if (imported.kind === "import-statement" && !imported.external) pending.push(imported.path);
    }
  }
  return initial;
}

/**
 * Bundles and measures a consumer of the client (by name), or a whole entry file (a path).
 * @example const { gzippedBytes } = await measureClientBundle("chat"); // the core, gzipped
 */
export async function measureClientBundle(
  consumer: ClientConsumer | (string & {}) = "chat",
): Promise<ClientBundleReport> {
  const contents =
    consumer in consumerSources
      ? consumerSources[consumer as ClientConsumer](sourceEntry)
      : `export * from "${repositoryRoot}${consumer}";`;
  const result = await build({
    absWorkingDir: repositoryRoot,
    entryPoints: ["consumer"],
    bundle: true,
    splitting: true,
    platform: "neutral",
    format: "esm",
    target: "es2022",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
    outdir: "size-out",
    plugins: [
      {
        name: "consumer",
        setup(builder) {
          builder.onResolve({ filter: /^consumer$/ }, () => ({
            path: "consumer",
            namespace: "consumer",
          }));
          builder.onLoad({ filter: /.*/, namespace: "consumer" }, () => ({
            contents,
            loader: "ts",
            resolveDir: repositoryRoot,
          }));
        },
      },
    ],
  });
  const { metafile } = result;
  const entryChunk = Object.keys(metafile.outputs).find(
    (file) => metafile.outputs[file]?.entryPoint === "consumer:consumer",
  );
  if (entryChunk === undefined) throw new Error("esbuild produced no entry chunk");
  const initial = initialChunks(metafile, entryChunk);
  const firstAnswer = new Set(initial);
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    const needed = /stream/.test(consumer)
      ? [...firstAnswerModules, "src/client/on-demand/stream-reader.ts"]
      : firstAnswerModules;
    if (Object.keys(inputs).some((input) => needed.includes(relative(input)))) {
      for (const chunk of initialChunks(metafile, output)) firstAnswer.add(chunk);
    }
  }
  const chunks: ClientChunk[] = result.outputFiles
    .filter((file) => file.path.endsWith(".js"))
    .map((file) => {
      const name = Object.keys(metafile.outputs).find((output) => file.path.endsWith(output))!;
      return {
        file: name,
        initial: initial.has(name),
        minifiedBytes: file.contents.byteLength,
        gzippedBytes: gzipSync(file.contents, { level: 9 }).byteLength,
        inputs: Object.keys(metafile.outputs[name]?.inputs ?? {})
          .map(relative)
          .sort(),
      };
    })
    .sort((a, b) => Number(b.initial) - Number(a.initial) || b.gzippedBytes - a.gzippedBytes);
  const core = chunks.filter((chunk) => chunk.initial);
  const sum = (list: readonly ClientChunk[], key: "minifiedBytes" | "gzippedBytes") =>
    list.reduce((total, chunk) => total + chunk[key], 0);
  return {
    consumer,
    inputs: core.flatMap((chunk) => chunk.inputs).sort(),
    externalImports: Object.values(metafile.outputs).flatMap((file) =>
      file.imports.filter((imported) => imported.external).map((imported) => imported.path),
    ),
    minifiedBytes: sum(core, "minifiedBytes"),
    gzippedBytes: sum(core, "gzippedBytes"),
    chunks,
    totalGzippedBytes: sum(chunks, "gzippedBytes"),
    firstAnswerGzippedBytes: sum(
      chunks.filter((chunk) => firstAnswer.has(chunk.file)),
      "gzippedBytes",
    ),
  };
}

/** `  55.7 kB` with 1 kB = 1,000 bytes, as BENCHMARKS.md counts them. */
function kilobytes(bytes: number): string {
  return formatBytes(bytes).padStart(9);
}

/** The main modules of a chunk, for a one-line description. */
function describeChunk(chunk: ClientChunk): string {
  const own = chunk.inputs.filter((input) => !input.startsWith("consumer"));
  const shown = own.slice(0, 4).map((input) => input.replace(/^src\//, ""));
  return shown.join(", ") + (own.length > shown.length ? `, +${own.length - shown.length}` : "");
}

/** The budget of a consumer that chats and streams, bundled into one file: 20 kB min+gz. */
export const oneFileBudgetBytes = 20_000;

async function main(argv: readonly string[]): Promise<number> {
  const budgetIndex = argv.indexOf("--max-gzip-bytes");
  const budget = budgetIndex === -1 ? undefined : Number(argv[budgetIndex + 1]);
  if (budget !== undefined && !Number.isFinite(budget)) {
    console.error("--max-gzip-bytes needs a number of bytes, e.g. --max-gzip-bytes 20000");
    return 2;
  }
  const consumerIndex = argv.indexOf("--consumer");
  const consumer = consumerIndex === -1 ? "chat-and-stream" : argv[consumerIndex + 1];
  if (consumer === undefined || !clientConsumers.includes(consumer as ClientConsumer)) {
    console.error(`--consumer must be one of ${clientConsumers.join(", ")}`);
    return 2;
  }
  const [one] = await measureOneFile([consumer as ClientConsumer]);
  const report = await measureClientBundle(consumer);
  if (argv.includes("--json"))
    console.log(JSON.stringify({ oneFile: one, split: report }, null, 2));
  else {
    console.log(`stepwise client, an app using ${consumer}`);
    console.log(
      `  one file  ${kilobytes(one!.gzippedBytes)} gzipped (${one!.gzippedBytes} bytes; ${one!.minifiedBytes} minified): the built package and the app in one file, esbuild --bundle --minify, as wrangler bundles a Worker`,
    );
    console.log(
      `            ${kilobytes(one!.keepNamesGzippedBytes)} gzipped with --keep-names (wrangler keeps names by default)`,
    );
    console.log(
      "  split, as a browser app's bundler loads it (esbuild, code splitting, minified):",
    );
    console.log(
      `  core      ${kilobytes(report.gzippedBytes)} gzipped (${report.gzippedBytes} bytes; ${report.minifiedBytes} minified), ${report.inputs.length} modules`,
    );
    for (const chunk of report.chunks) {
      const when = chunk.initial ? "core    " : "on use  ";
      console.log(`    ${when}${kilobytes(chunk.gzippedBytes)}  ${describeChunk(chunk)}`);
    }
    console.log(
      `  1st answer${kilobytes(report.firstAnswerGzippedBytes)} gzipped: the core and one provider's format (OpenAI)${/stream/.test(consumer) ? ", with the stream reader" : ""}`,
    );
    console.log(`  all       ${kilobytes(report.totalGzippedBytes)} gzipped, every chunk`);
    console.log(
      `  external  ${report.externalImports.length === 0 ? "none (fetch only)" : report.externalImports.join(", ")}`,
    );
  }
  if (report.externalImports.length > 0) {
    console.error("The client must not import packages or Node built-ins.");
    return 1;
  }
  if (budget !== undefined && one!.gzippedBytes > budget) {
    console.error(
      `Over budget: the one-file bundle is ${one!.gzippedBytes} gzipped bytes > ${budget}.`,
    );
    return 1;
  }
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
