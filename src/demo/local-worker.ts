/**
 * @module
 * Runs the companion Worker locally the way it is deployed: the bundle that
 * `wrangler deploy --dry-run` writes (the file Pulumi uploads), loaded into workerd by Miniflare
 * with the bindings of `wrangler.jsonc` (a local KV namespace, the `KeyLedger`, `AppLimiter` and
 * `ProviderMonitor` Durable Objects on SQLite storage, an Analytics Engine dataset), listening on 127.0.0.1 at a
 * port chosen at run time, behind a small Node front (`framing-front.ts`) that refuses malformed
 * framing with a JSON 400 as Cloudflare's edge would. Used by `stepwise demo`, the benchmarks and
 * the end-to-end tests.
 *
 * Miniflare's Analytics Engine dataset drops every point; with `recordAnalytics` the Worker gets
 * a dataset that prints each point instead, and {@link RunningWorker.analyticsPoints} reads them
 * back (what Cloudflare would store, for tests that check what the Worker wrote).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Miniflare } from "miniflare";
import { startFramingFront } from "./framing-front.ts";

const run = promisify(execFile);
export const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
const wranglerBin = path.join(projectRoot, "node_modules", ".bin", "wrangler");

/** A bundle built into a temporary directory. */
export interface WorkerBundle {
  readonly directory: string;
  readonly scriptPath: string;
  /** esbuild's metafile of the build (`--metafile`): every input and its bytes in the bundle. */
  readonly metafilePath: string;
  /** What wrangler printed (its binding table). */
  readonly output: string;
  remove(): Promise<void>;
}

/**
 * `wrangler deploy --dry-run --outdir <tmp>`: the same build as `npm run worker:bundle`. Outside
 * a checkout of Stepwise (the package installed by an app, with neither the Worker's sources nor
 * wrangler), the bundle the package ships pre-built, `dist/worker-bundle/`, built the same way.
 */
export async function buildWorkerBundle(): Promise<WorkerBundle> {
  if (!builtFromSources()) return shippedWorkerBundle();
  const directory = await mkdtemp(path.join(tmpdir(), "stepwise-worker-"));
  const { stdout, stderr } = await run(
    wranglerBin,
    ["deploy", "--dry-run", "--outdir", directory, "--metafile"],
    { cwd: projectRoot, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" } },
  );
  return {
    directory,
    scriptPath: path.join(directory, "index.js"),
    metafilePath: path.join(directory, "bundle-meta.json"),
    output: `${stdout}\n${stderr}`,
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

/** True in a checkout of Stepwise (wrangler builds the Worker); false in an installed package. */
export function builtFromSources(): boolean {
  return existsSync(path.join(projectRoot, "wrangler.jsonc"));
}

/** The package's pre-built bundle; `remove()` leaves it in place. */
function shippedWorkerBundle(): WorkerBundle {
  const directory = path.join(projectRoot, "dist", "worker-bundle");
  return {
    directory,
    scriptPath: path.join(directory, "index.js"),
    metafilePath: path.join(directory, "bundle-meta.json"),
    output: "",
    remove: async () => {},
  };
}

/** The bindings a test Worker gets besides KV. */
export interface WorkerBindings {
  readonly ROTATE_TOKEN: string;
  readonly GATEWAY_TOKEN?: string;
  readonly GATEWAY_URL: string;
  readonly STEPWISE_CONFIG: string;
  /** Cloudflare's API base for the BYOK secrets: the emulator's REST URL locally. */
  readonly CLOUDFLARE_API_URL?: string;
  readonly SECRETS_STORE_TOKEN?: string;
  /** The store the BYOK gateways point at. */
  readonly BYOK_STORE_ID?: string;
}

/** One Analytics Engine data point as the Worker wrote it. */
export interface AnalyticsPoint {
  readonly indexes?: string[];
  readonly blobs?: (string | null)[];
  readonly doubles?: number[];
}

/** A running Worker. */
export interface RunningWorker {
  /**
   * Where apps call it: the local front (`framing-front.ts`), which answers malformed HTTP
   * framing with a JSON 400 as Cloudflare's edge refuses it, and passes the rest to workerd.
   */
  readonly url: string;
  /** workerd itself, without the front (what the overhead benchmark measures the proxy on). */
  readonly workerdUrl: string;
  readonly miniflare: Miniflare;
  /** Everything the Worker wrote to stdout and stderr. */
  readonly logs: string[];
  /** The points written so far (only with `recordAnalytics`). */
  analyticsPoints(): AnalyticsPoint[];
  /** Resolves once `count` points have been written, or rejects after `timeoutMs`. */
  waitForAnalyticsPoints(count: number, timeoutMs?: number): Promise<AnalyticsPoint[]>;
  close(): Promise<void>;
}

/** Options for {@link startWorker}. */
export interface StartWorkerOptions {
  /** Give the Worker an Analytics Engine dataset whose points can be read back. */
  readonly recordAnalytics?: boolean;
}

/**
 * The Durable Object bindings of `wrangler.jsonc`, as Miniflare takes them (SQLite-backed, like
 * the deployed `new_sqlite_classes`). test/pulumi/worker-contract.test.ts keeps them in step.
 */
export const localDurableObjects = {
  KEY_LEDGER: { className: "KeyLedger", useSQLite: true },
  APP_LIMITER: { className: "AppLimiter", useSQLite: true },
  PROVIDER_MONITOR: { className: "ProviderMonitor", useSQLite: true },
} as const;

const pointPrefix = "stepwise-analytics-point ";

/** A dataset (a Miniflare wrapped binding) that prints each point on one line. */
const recordingDataset = `export default function () {
  return {
    writeDataPoint(point) {
      console.log(${JSON.stringify(pointPrefix)} + JSON.stringify(point ?? {}));
    },
  };
}
`;

/** Starts the bundle in workerd with in-memory KV, Durable Objects and dataset bindings. */
export async function startWorker(
  scriptPath: string,
  bindings: WorkerBindings,
  options: StartWorkerOptions = {},
): Promise<RunningWorker> {
  const logs: string[] = [];
  const points: AnalyticsPoint[] = [];
  const waiters = new Set<() => void>();
  let pending = "";
  const readPoints = (text: string) => {
    pending += text;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const at = line.indexOf(pointPrefix);
      if (at !== -1) points.push(JSON.parse(line.slice(at + pointPrefix.length)) as AnalyticsPoint);
    }
    for (const wake of waiters) wake();
  };
  const worker = {
    name: "stepwise-keys",
    modules: true,
    scriptPath,
    modulesRoot: path.dirname(scriptPath),
    compatibilityDate: "2026-04-01",
    kvNamespaces: ["KEYS"],
    durableObjects: localDurableObjects,
    bindings: { ...bindings },
    ...(options.recordAnalytics === true
      ? { wrappedBindings: { EVENTS: { scriptName: "stepwise-analytics-recorder" } } }
      : { analyticsEngineDatasets: { EVENTS: { dataset: "stepwise_events" } } }),
  };
  const miniflare = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      for (const stream of [stdout, stderr]) {
        stream.on("data", (chunk: Buffer) => {
          const text = chunk.toString("utf8");
          logs.push(text);
          readPoints(text);
        });
      }
    },
    workers: [
      worker,
      ...(options.recordAnalytics === true
        ? [
            {
              name: "stepwise-analytics-recorder",
              modules: [
                { type: "ESModule" as const, path: "recorder.mjs", contents: recordingDataset },
              ],
            },
          ]
        : []),
    ],
  });
  const workerdUrl = (await miniflare.ready).toString().replace(/\/$/, "");
  const front = await startFramingFront(workerdUrl).catch(async (error: unknown) => {
    await miniflare.dispose();
    throw error;
  });
  return {
    url: front.url,
    workerdUrl,
    miniflare,
    logs,
    analyticsPoints: () => [...points],
    waitForAnalyticsPoints(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (points.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve([...points]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`the Worker wrote ${points.length} of ${count} Analytics Engine points`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: async () => {
      await front.close();
      await miniflare.dispose();
    },
  };
}
