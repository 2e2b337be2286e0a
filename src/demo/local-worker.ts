/**
 * @module
 * Runs the companion Worker locally the way it is deployed: the bundle that
 * `wrangler deploy --dry-run` writes (the file Pulumi uploads), loaded into workerd by Miniflare
 * with a real local KV namespace, listening on 127.0.0.1 at a port chosen at run time. Used by
 * `stepwise demo` and the end-to-end tests.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Miniflare } from "miniflare";

const run = promisify(execFile);
export const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
const wranglerBin = path.join(projectRoot, "node_modules", ".bin", "wrangler");

/** A bundle built into a temporary directory. */
export interface WorkerBundle {
  readonly directory: string;
  readonly scriptPath: string;
  /** What wrangler printed (its binding table). */
  readonly output: string;
  remove(): Promise<void>;
}

/** `wrangler deploy --dry-run --outdir <tmp>`: the same build as `npm run worker:bundle`. */
export async function buildWorkerBundle(): Promise<WorkerBundle> {
  const directory = await mkdtemp(path.join(tmpdir(), "stepwise-worker-"));
  const { stdout, stderr } = await run(
    wranglerBin,
    ["deploy", "--dry-run", "--outdir", directory],
    { cwd: projectRoot, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" } },
  );
  return {
    directory,
    scriptPath: path.join(directory, "index.js"),
    output: `${stdout}\n${stderr}`,
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

/** The bindings a test Worker gets besides KV. */
export interface WorkerBindings {
  readonly ROTATE_TOKEN: string;
  readonly GATEWAY_TOKEN?: string;
  readonly GATEWAY_URL: string;
  readonly STEPWISE_CONFIG: string;
}

/** A running Worker. */
export interface RunningWorker {
  readonly url: string;
  readonly miniflare: Miniflare;
  /** Everything the Worker wrote to stdout and stderr. */
  readonly logs: string[];
  close(): Promise<void>;
}

/** Starts the bundle in workerd with an in-memory KV namespace `KEYS`. */
export async function startWorker(
  scriptPath: string,
  bindings: WorkerBindings,
): Promise<RunningWorker> {
  const logs: string[] = [];
  const miniflare = new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot: path.dirname(scriptPath),
    compatibilityDate: "2026-04-01",
    kvNamespaces: ["KEYS"],
    bindings: { ...bindings },
    host: "127.0.0.1",
    port: 0,
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      for (const stream of [stdout, stderr]) {
        stream.on("data", (chunk: Buffer) => logs.push(chunk.toString("utf8")));
      }
    },
  });
  const url = (await miniflare.ready).toString().replace(/\/$/, "");
  return { url, miniflare, logs, close: () => miniflare.dispose() };
}
