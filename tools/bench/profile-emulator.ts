/**
 * @module
 * A CPU profile of `stepwise dev` (the built CLI) under the throughput benchmark's load: mock
 * providers in this process, the emulator in a child process started with `node --cpu-prof`,
 * `--requests` universal calls at `--concurrency`, then a summary of where the emulator's CPU
 * went (self time by category and by function). This is how the emulator's fast paths were
 * found; BENCHMARKS.md summarises what it showed.
 *
 * Usage: `tsx tools/bench/profile-emulator.ts [--requests 20000] [--concurrency 32]
 *   [--failing] [--keep <dir>]` (run `npm run build:js` first; `--keep` keeps the .cpuprofile).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startMockProviders } from "../../src/emulator/mocks/index.ts";
import { benchConfig, primary, providers, secondary } from "./fixtures.ts";
import { emulatorCall } from "./gateway-calls.ts";
import { runLoad } from "./load.ts";
import { cpuTime } from "./servers/child-server.ts";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly hitCount?: number;
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Where a function's self time is counted. */
function categoryOf(frame: ProfileNode["callFrame"]): string {
  const { url, functionName } = frame;
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(idle)" || functionName === "(program)") return functionName;
  if (url.includes("internal/deps/undici")) return "undici (fetch)";
  if (url.includes("internal/webstreams")) return "web streams";
  if (url.includes("/zod/")) return "zod";
  if (url.includes("/dist/")) return "stepwise (dist)";
  if (url.includes("node:internal/http") || url.includes("_http_")) return "node:http";
  if (url.includes("node:internal/streams") || url.includes("node:stream")) return "node streams";
  if (url.startsWith("node:")) return "node (other)";
  if (url === "") return "native";
  return "other";
}

/** Self time (µs) per key, from a profile's samples. */
function selfTimes(profile: CpuProfile, key: (node: ProfileNode) => string): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    if (!node) return;
    const name = key(node);
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return totals;
}

function table(totals: Map<string, number>, busy: number, rows: number): string {
  return [...totals.entries()]
    .filter(([name]) => !name.startsWith("(idle)"))
    .sort((left, right) => right[1] - left[1])
    .slice(0, rows)
    .map(([name, micros]) => `${((micros / busy) * 100).toFixed(1).padStart(5)} %  ${name}`)
    .join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: "string", default: "20000" },
      concurrency: { type: "string", default: "32" },
      failing: { type: "boolean", default: false },
      keep: { type: "string" },
    },
  });
  const requests = Number(values.requests);
  const concurrency = Number(values.concurrency);
  const mocks = await startMockProviders({ providers: [...providers] });
  if (values.failing)
    mocks.setFaults({ rules: [{ provider: primary.provider, kind: "unavailable" }] });
  const directory = values.keep ?? (await mkdtemp(path.join(tmpdir(), "stepwise-profile-")));
  await mkdir(directory, { recursive: true });
  const configFile = path.join(directory, "bench-config.json");
  await writeFile(configFile, JSON.stringify(benchConfig()));
  const child = spawn(
    process.execPath,
    [
      "--cpu-prof",
      `--cpu-prof-dir=${directory}`,
      path.join(repositoryRoot, "bin/stepwise.js"),
      "dev",
      "--file",
      configFile,
      "--port",
      "0",
      "--json",
      ...Object.entries(mocks.urls).flatMap(([slug, url]) => ["--upstream", `${slug}=${url}`]),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
    const { url } = JSON.parse(line) as { url: string };
    const call = emulatorCall(url, [primary, secondary], values.failing ? 1 : 0);
    await runLoad(call, { count: 2_000, concurrency });
    mocks.clearAttempts();
    const cpuBefore = cpuTime(child.pid!) ?? Number.NaN;
    const result = await runLoad(call, { count: requests, concurrency });
    const cpuMs = (cpuTime(child.pid!) ?? Number.NaN) - cpuBefore;
    if (result.failures > 0) throw new Error(`${result.failures} failed: ${result.firstFailure}`);
    const rps = (requests / result.elapsedMs) * 1000;
    console.log(
      `${requests} requests at concurrency ${concurrency}: ${rps.toFixed(0)} req/s, emulator CPU ${(cpuMs / requests).toFixed(3)} ms/request (includes 2,000 warm-up requests in the profile)`,
    );
  } finally {
    child.kill("SIGINT");
    await once(child, "exit");
    await mocks.close();
  }
  const file = (await readdir(directory)).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no .cpuprofile written in ${directory}`);
  const profile = JSON.parse(await readFile(path.join(directory, file), "utf8")) as CpuProfile;
  const all = selfTimes(profile, () => "all");
  const idle = selfTimes(profile, (node) => node.callFrame.functionName);
  const busy = (all.get("all") ?? 0) - (idle.get("(idle)") ?? 0);
  console.log(`\nSelf time by category (of ${(busy / 1000).toFixed(0)} ms busy):`);
  console.log(
    table(
      selfTimes(profile, (node) => categoryOf(node.callFrame)),
      busy,
      20,
    ),
  );
  console.log("\nSelf time by function:");
  console.log(
    table(
      selfTimes(profile, ({ callFrame }) => {
        const where = callFrame.url.replace(/^.*\/(node_modules|dist|src)\//, "$1/");
        return `${callFrame.functionName || "(anonymous)"}  ${where}:${callFrame.lineNumber + 1}`;
      }),
      busy,
      40,
    ),
  );
  if (values.keep) console.log(`\nProfile kept: ${path.join(directory, file)}`);
  else await rm(directory, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
