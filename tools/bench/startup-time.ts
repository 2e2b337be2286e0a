/**
 * @module
 * Start-up of a short command, measured so that other load on the machine shows as what it is:
 * several runs alternating with bare `node -e 0`, each run's wall time and its own CPU time
 * (user + system, from GNU time), so a slow run on a busy machine can be told from a slow program.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** Wall and CPU time of each run, in ms. */
export interface StartupSamples {
  readonly wallMs: number[];
  readonly cpuMs: number[];
  /** The same for `node -e 0`, run between them. */
  readonly bareWallMs: number[];
  readonly bareCpuMs: number[];
}

async function timeOnce(args: readonly string[], cwd: string): Promise<[number, number]> {
  const scratch = await mkdtemp(path.join(tmpdir(), "stepwise-bench-startup-"));
  try {
    const file = path.join(scratch, "time.txt");
    const started = performance.now();
    const child = spawn("/usr/bin/time", ["-f", "%U %S", "-o", file, "node", ...args], {
      cwd,
      stdio: "ignore",
    });
    const [code] = (await once(child, "exit")) as [number | null];
    const wall = performance.now() - started;
    if (code !== 0) throw new Error(`node ${args.join(" ")} exited with ${code}`);
    const [user, system] = (await readFile(file, "utf8")).trim().split(/\s+/).map(Number);
    return [wall, ((user ?? Number.NaN) + (system ?? Number.NaN)) * 1000];
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Runs `node <args>` and `node -e 0` in turn, `runs` times each. Needs GNU time. */
export async function measureStartup(
  args: readonly string[],
  cwd: string,
  runs: number,
): Promise<StartupSamples> {
  const samples: StartupSamples = { wallMs: [], cpuMs: [], bareWallMs: [], bareCpuMs: [] };
  for (let index = 0; index < runs; index += 1) {
    const [wall, cpu] = await timeOnce(args, cwd);
    samples.wallMs.push(wall);
    samples.cpuMs.push(cpu);
    const [bareWall, bareCpu] = await timeOnce(["-e", "0"], cwd);
    samples.bareWallMs.push(bareWall);
    samples.bareCpuMs.push(bareCpu);
  }
  return samples;
}
