/**
 * @module
 * Runs a command to completion and measures its wall time and peak resident memory: through
 * GNU time (`/usr/bin/time -f`) when it is installed, else wall time only. Standard output goes
 * to a file (or nowhere), so that printing is not what is measured.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const gnuTime = "/usr/bin/time";

/** What one run cost. */
export interface CommandCost {
  readonly wallMs: number;
  /** Peak RSS in bytes; undefined without GNU time. */
  readonly peakRssBytes: number | undefined;
  /** User + system CPU time in ms (every thread); undefined without GNU time. */
  readonly cpuMs?: number | undefined;
  /** What the command printed on stdout, when `captureStdout` was set. */
  readonly stdout: string;
}

/** True when a program can be run (found on PATH or at the path given). */
export async function isInstalled(program: string): Promise<boolean> {
  const candidates = program.includes("/")
    ? [program]
    : (process.env.PATH ?? "").split(path.delimiter).map((dir) => path.join(dir, program));
  for (const candidate of candidates) {
    try {
      await access(candidate);
      return true;
    } catch {}
  }
  return false;
}

/**
 * Runs `command args…` in `cwd`.
 * @throws Error with the command's stderr when it exits with a non-zero code.
 */
export async function timedCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; captureStdout?: boolean },
): Promise<CommandCost> {
  const scratch = await mkdtemp(path.join(tmpdir(), "stepwise-bench-time-"));
  const timeFile = path.join(scratch, "time.txt");
  try {
    const useTime = await isInstalled(gnuTime);
    const [program, programArgs] = useTime
      ? [gnuTime, ["-f", "%M %U %S", "-o", timeFile, command, ...args]]
      : [command, [...args]];
    const started = performance.now();
    const child = spawn(program, programArgs, {
      cwd: options.cwd,
      stdio: ["ignore", options.captureStdout ? "pipe" : "ignore", "pipe"],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    const [code] = (await once(child, "exit")) as [number | null];
    const wallMs = performance.now() - started;
    if (code !== 0) {
      const message = Buffer.concat(stderr).toString("utf8").trim().slice(-1_000);
      throw new Error(`${command} ${args.join(" ")} exited with ${code}: ${message}`);
    }
    const [kilobytes = Number.NaN, user = Number.NaN, system = Number.NaN] = useTime
      ? (await readFile(timeFile, "utf8")).trim().split(/\s+/).map(Number)
      : [];
    const cpuMs = (user + system) * 1000;
    return {
      wallMs,
      peakRssBytes: Number.isFinite(kilobytes) ? kilobytes * 1024 : undefined,
      cpuMs: Number.isFinite(cpuMs) ? cpuMs : undefined,
      stdout: Buffer.concat(stdout).toString("utf8"),
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
