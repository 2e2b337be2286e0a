/**
 * @module
 * Reports the thin client's size as an app pays for it: a consumer that imports only what it
 * uses (by default `createGatewayClient`, with `chat` and `stream`) bundled by esbuild for a neutral platform (no
 * Node built-ins, no packages), minified, with code splitting on. The *core* is what loads before
 * the first call: the consumer's chunk and every chunk it imports statically, each gzipped (level
 * 9) as it is fetched, and summed. What the client loads on first use (a provider's format, the
 * stream reader, failover after a failure, recording, gateway settings) is listed apart, chunk by
 * chunk. It also lists any import left external, which must be none: the client depends on
 * `fetch` and web platform APIs only (eventsource-parser is bundled in).
 *
 * Usage: `tsx tools/scripts/client-size.ts [--json] [--consumer chat|stream|breaker|fetch]
 * [--max-gzip-bytes <n>]` (exit code 1 when the bundle imports anything external or the core is
 * over the budget).
 */

import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";
import { formatBytes } from "../bench/stats.ts";

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
  /**
   * The core's chunks joined and gzipped as one file: what an app pays when its own bundler folds
   * the client's shared chunks into the app's entry chunk (as Rollup does). Never the budget's measure.
   */
  readonly gzippedAsOneBytes: number;
  /** Every chunk, initial ones first. */
  readonly chunks: readonly ClientChunk[];
  /** Every chunk (core and on first use), each gzipped, summed. */
  readonly totalGzippedBytes: number;
  /**
   * What an app has loaded by its first healthy answer, gzipped: the core, the failover code the
   * client preloads when created, and one provider's format (OpenAI's), with what they import
   * (for the `stream` consumer, also the stream reader).
   */
  readonly firstAnswerGzippedBytes: number;
}

/** Modules a client with one OpenAI route loads by its first healthy `chat` answer, beyond the core. */
const firstAnswerModules = ["src/client/failover.ts", "src/providers/openai.ts"];

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));
const clientEntry = `${repositoryRoot}src/client/index.ts`;
const setup = `const client = createGatewayClient({ accountId: "a", gatewayId: "g", routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } });
const messages = [{ role: "user", content: "Hi" }];`;

/**
 * Consumers by name: an app's module using one part of the client. `chat` is the core entry's
 * promise: `createGatewayClient` (its client's `chat` and `stream` come with it), re-exported so
 * that no app code is counted; `stream` is an app that calls it.
 */
export const clientConsumers = {
  chat: `export { createGatewayClient } from "${clientEntry}";`,
  stream: `import { createGatewayClient } from "${clientEntry}";
${setup}
export const answer = client.stream({ route: "default", messages }).collect();`,
  breaker: `import { createGatewayClient } from "${clientEntry}";
import { createCircuitBreaker } from "${repositoryRoot}src/client/breaker.ts";
const client = createGatewayClient({ accountId: "a", gatewayId: "g", breaker: createCircuitBreaker(), routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] } });
export const answer = client.chat({ route: "default", messages: [{ role: "user", content: "Hi" }] });`,
  fetch: `import { createGatewayFetch } from "${repositoryRoot}src/client/fetch.ts";
export const fetch = createGatewayFetch({ accountId: "a", gatewayId: "g" });`,
} as const;

export type ClientConsumer = keyof typeof clientConsumers;

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
    consumer in clientConsumers
      ? clientConsumers[consumer as ClientConsumer]
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
    const needed =
      consumer === "stream"
        ? [...firstAnswerModules, "src/client/stream-reader.ts"]
        : firstAnswerModules;
    if (Object.keys(inputs).some((input) => needed.includes(relative(input)))) {
      for (const chunk of initialChunks(metafile, output)) firstAnswer.add(chunk);
    }
  }
  const coreTexts: string[] = [];
  const chunks: ClientChunk[] = result.outputFiles
    .filter((file) => file.path.endsWith(".js"))
    .map((file) => {
      const name = Object.keys(metafile.outputs).find((output) => file.path.endsWith(output))!;
      if (initial.has(name)) coreTexts.push(file.text);
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
    gzippedAsOneBytes: gzipSync(coreTexts.join("\n"), { level: 9 }).byteLength,
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

async function main(argv: readonly string[]): Promise<number> {
  const budgetIndex = argv.indexOf("--max-gzip-bytes");
  const budget = budgetIndex === -1 ? undefined : Number(argv[budgetIndex + 1]);
  if (budget !== undefined && !Number.isFinite(budget)) {
    console.error("--max-gzip-bytes needs a number of bytes, e.g. --max-gzip-bytes 6000");
    return 2;
  }
  const consumerIndex = argv.indexOf("--consumer");
  const consumer = consumerIndex === -1 ? "chat" : argv[consumerIndex + 1];
  if (consumer === undefined || !(consumer in clientConsumers)) {
    console.error(`--consumer must be one of ${Object.keys(clientConsumers).join(", ")}`);
    return 2;
  }
  const report = await measureClientBundle(consumer);
  if (argv.includes("--json")) console.log(JSON.stringify(report, null, 2));
  else {
    console.log(`stepwise client, a consumer using ${consumer} (esbuild, splitting, minified)`);
    console.log(
      `  core      ${kilobytes(report.gzippedBytes)} gzipped (${report.gzippedBytes} bytes; ${report.minifiedBytes} minified), ${report.inputs.length} modules`,
    );
    console.log(
      `  as one    ${kilobytes(report.gzippedAsOneBytes)} gzipped (${report.gzippedAsOneBytes} bytes), the core's chunks joined: an app whose bundler folds them into its own chunk`,
    );
    for (const chunk of report.chunks) {
      const when = chunk.initial ? "core    " : "on use  ";
      console.log(`    ${when}${kilobytes(chunk.gzippedBytes)}  ${describeChunk(chunk)}`);
    }
    console.log(
      `  1st answer${kilobytes(report.firstAnswerGzippedBytes)} gzipped: the core, failover (preloaded) and one provider's format (OpenAI)`,
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
  if (budget !== undefined && report.gzippedBytes > budget) {
    console.error(`Over budget: ${report.gzippedBytes} gzipped bytes > ${budget}.`);
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
