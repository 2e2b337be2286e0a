/**
 * @module
 * `npm run build`: the package users install. JavaScript from esbuild, types from tsc.
 *
 * Why two tools: esbuild bundles each public entry (and the CLI) into ES modules with shared
 * chunks in well under a second, so the CLI starts by loading a few files instead of compiling
 * TypeScript (tsx) or resolving hundreds of modules, and the few packages meant to be inlined
 * (`eventsource-parser`: the client stays free of run-time dependencies) are inlined. Every other
 * package stays an import, resolved from the user's `node_modules`. tsc writes the `.d.ts` files
 * beside them (`tsconfig.build.json`), exactly the types the sources declare. tsdown and tsup
 * would do both in one step, but their current releases need Node 22.
 *
 * The full build also bundles the companion Worker with wrangler's dry run into
 * `dist/worker-bundle/` (what `KeyVault` uploads), with the `wrangler.jsonc` settings it was
 * built with beside it as `wrangler.json`, so a team's Pulumi program that installed the package
 * needs neither wrangler nor this repository's `wrangler.jsonc`.
 *
 * Usage: `tsx tools/build/build.ts [--js-only]`
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { stripJsonComments } from "../../src/pulumi/wrangler-config.ts";
import { writeJsonSchema } from "./json-schema.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Public entries (package.json `exports`) and the CLI, as `dist/<name>.js`. */
export const entries: Readonly<Record<string, string>> = {
  "cli/main": "src/cli/main.ts",
  // The parallel events reader's worker thread, at a path its parent finds (events-parallel.ts).
  "analytics/events-worker": "src/analytics/sources/events-worker.ts",
  "client/index": "src/client/index.ts",
  "client/breaker": "src/client/breaker.ts",
  "client/budget": "src/routes/budget-ledger.ts",
  "client/errors": "src/client/errors.ts",
  "client/fetch": "src/client/fetch.ts",
  "client/health": "src/client/health/health-steering.ts",
  "client/limits": "src/client/limits/provider-limits.ts",
  "client/node/index": "src/client/node/index.ts",
  "client/otel/index": "src/client/otel/index.ts",
  "client/rest": "src/client/rest/index.ts",
  "config/index": "src/config/index.ts",
  "emulator/index": "src/emulator/index.ts",
  "providers/index": "src/providers/index.ts",
  "pulumi/index": "src/pulumi/index.ts",
  "routes/index": "src/routes/index.ts",
  "worker-admin/index": "src/worker-admin/index.ts",
};

/** Packages bundled into the output instead of imported at run time. */
export const inlinedPackages: readonly string[] = ["eventsource-parser"];

function declaredPackages(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  // Peers (optional: the SDK, Pulumi, miniflare, wrangler) stay imports even when a checkout
  // lacks them: an app installs them only for the commands that load them.
  return [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ].filter((name) => !inlinedPackages.includes(name));
}

/** esbuild: one ES module per entry under dist/, shared code in dist/chunks/. */
export async function buildJavaScript(outdir = path.join(root, "dist")): Promise<void> {
  await build({
    absWorkingDir: root,
    entryPoints: Object.entries(entries).map(([out, input]) => ({ in: input, out })),
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // No keepNames: the output is not minified, so functions and classes keep their own names
    // (only a clash inside a chunk renames one, `reference2`), errors set `name` themselves, and
    // an app's bundler that minifies keeps names when asked (wrangler does by default). Baking
    // `__name()` calls in cost every app 2.3 kB gzipped of the client alone, twice over with
    // wrangler's own.
    chunkNames: "chunks/[name]-[hash]",
    external: declaredPackages().flatMap((name) => [name, `${name}/*`]),
    logLevel: "warning",
  });
}

/** tsc: `.d.ts` files for every module under src/, mirrored into dist/. */
export async function buildTypes(): Promise<void> {
  const tsc = path.join(root, "node_modules", ".bin", "tsc");
  await promisify(execFile)(tsc, ["-p", "tsconfig.build.json"], { cwd: root });
}

/**
 * The companion Worker's bundle, as `npm run worker:bundle` writes it (wrangler's dry run, per
 * `wrangler.jsonc`), and that file's settings as plain JSON beside it.
 */
export async function buildWorkerBundle(
  outdir = path.join(root, "dist", "worker-bundle"),
): Promise<void> {
  const wrangler = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  await promisify(execFile)(
    process.execPath,
    [wrangler, "deploy", "--dry-run", "--outdir", outdir],
    { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" } },
  );
  const settings = JSON.parse(
    stripJsonComments(readFileSync(path.join(root, "wrangler.jsonc"), "utf8")),
  ) as unknown;
  await writeFile(path.join(outdir, "wrangler.json"), `${JSON.stringify(settings, null, 2)}\n`);
  // wrangler's note about the folder is not for the package.
  await rm(path.join(outdir, "README.md"), { force: true });
}

/**
 * Removes what the build writes: all of dist/ (or only its JavaScript, for `--js-only`), but for
 * the Worker bundle (`npm run worker:bundle`), which Pulumi uploads.
 */
async function cleanDist(javaScriptOnly: boolean): Promise<void> {
  const dist = path.join(root, "dist");
  const entries = await readdir(dist, { recursive: true }).catch(() => [] as string[]);
  const removable = entries.filter(
    (name) =>
      !name.startsWith("worker-bundle") &&
      (javaScriptOnly ? name.endsWith(".js") : !name.includes(path.sep)),
  );
  await Promise.all(
    removable.map((name) => rm(path.join(dist, name), { recursive: true, force: true })),
  );
}

async function main(argv: readonly string[]): Promise<void> {
  if (argv.includes("--help")) {
    console.log(
      "Usage: npm run build [-- --js-only]\nWrites dist/: ES modules (esbuild), stepwise-config.schema.json, .d.ts files (tsc) and the companion Worker's bundle (wrangler, dist/worker-bundle/; not with --js-only).",
    );
    return;
  }
  const javaScriptOnly = argv.includes("--js-only");
  await cleanDist(javaScriptOnly);
  await buildJavaScript();
  // The stack file's JSON Schema, for editors (docs/pulumi.md).
  await writeJsonSchema();
  if (!javaScriptOnly) await Promise.all([buildTypes(), buildWorkerBundle()]);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    const detail = error as { stdout?: string; message?: string };
    console.error(detail.stdout || detail.message || error);
    process.exit(1);
  });
}
