/**
 * @module
 * Reports the thin client's size: `src/client/index.ts` bundled by esbuild for a neutral
 * platform (no Node built-ins, no packages), minified, then gzipped. It also lists the modules
 * that went in and any import left external, which must be none: the client depends on `fetch`
 * and web platform APIs only.
 *
 * Usage: `tsx tools/scripts/client-size.ts [--json] [--max-gzip-bytes <n>]`
 * (exit code 1 when the bundle imports anything external or is over the budget).
 */

import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { formatBytes } from "../bench/stats.ts";

/** What `measureClientBundle` found. */
export interface ClientBundleReport {
  readonly entry: string;
  /** Repository-relative paths of every module in the bundle. */
  readonly inputs: readonly string[];
  /** Imports esbuild left unresolved in the output; must be empty. */
  readonly externalImports: readonly string[];
  readonly minifiedBytes: number;
  readonly gzippedBytes: number;
}

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Bundles and measures the client entry.
 * @example const { gzippedBytes } = await measureClientBundle();
 */
export async function measureClientBundle(
  entry = "src/client/index.ts",
): Promise<ClientBundleReport> {
  const result = await build({
    absWorkingDir: repositoryRoot,
    entryPoints: [entry],
    bundle: true,
    platform: "neutral",
    format: "esm",
    target: "es2022",
    minify: true,
    write: false,
    metafile: true,
    logLevel: "silent",
    outfile: "client.min.js",
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error("esbuild produced no output");
  const externalImports = Object.values(result.metafile.outputs).flatMap((file) =>
    file.imports.filter((imported) => imported.external).map((imported) => imported.path),
  );
  return {
    entry,
    inputs: Object.keys(result.metafile.inputs).sort(),
    externalImports,
    minifiedBytes: output.contents.byteLength,
    gzippedBytes: gzipSync(output.contents, { level: 9 }).byteLength,
  };
}

/** `  55.7 kB` with 1 kB = 1,000 bytes, as BENCHMARKS.md counts them. */
function kilobytes(bytes: number): string {
  return formatBytes(bytes).padStart(9);
}

async function main(argv: readonly string[]): Promise<number> {
  const budgetIndex = argv.indexOf("--max-gzip-bytes");
  const budget = budgetIndex === -1 ? undefined : Number(argv[budgetIndex + 1]);
  if (budget !== undefined && !Number.isFinite(budget)) {
    console.error("--max-gzip-bytes needs a number of bytes, e.g. --max-gzip-bytes 20000");
    return 2;
  }
  const report = await measureClientBundle();
  if (argv.includes("--json")) console.log(JSON.stringify(report, null, 2));
  else {
    const folders = [
      ...new Set(report.inputs.map((input) => input.split("/").slice(0, 2).join("/"))),
    ];
    console.log(`stepwise client (${report.entry})`);
    console.log(`  modules   ${report.inputs.length} from ${folders.join(", ")}`);
    console.log(`  minified  ${kilobytes(report.minifiedBytes)}  (${report.minifiedBytes} bytes)`);
    console.log(`  gzipped   ${kilobytes(report.gzippedBytes)}  (${report.gzippedBytes} bytes)`);
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
