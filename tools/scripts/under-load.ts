/**
 * @module
 * Runs a command (by default `npm test`) while a CPU hog keeps every core busy: one Node process
 * per core spinning in a loop, started before the command and killed after it (also when the
 * command fails or this script is interrupted). It repeats the command `--runs` times and prints
 * each run's exit code, wall time and the load average, so "the tests hold on a busy machine" is
 * a command anyone can run, not a claim.
 *
 * Usage: `npm run test:under-load -- [--runs <n>] [--hogs <n>] [-- <command> <args…>]`
 * (exit code: 0 when every run exits 0, else 1; 2 for a usage error).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** One run of the command under load. */
export interface LoadedRun {
  readonly run: number;
  readonly exitCode: number;
  readonly wallMs: number;
  /** The 1-minute load average sampled every few seconds: lowest, mean and highest. */
  readonly load: { readonly min: number; readonly mean: number; readonly max: number };
}

/** What the script was asked to do. */
export interface LoadOptions {
  readonly runs: number;
  readonly hogs: number;
  readonly command: readonly string[];
}

const usage =
  "usage: tsx tools/scripts/under-load.ts [--runs <n>] [--hogs <n>] [-- <command> <args…>]";

/** Parses the command line; throws a message ending in the usage line on a mistake. */
export function parseLoadOptions(argv: readonly string[]): LoadOptions {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { runs: { type: "string" }, hogs: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const whole = (name: string, text: string | undefined, fallback: number) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`--${name} takes a whole number of at least 1, not "${text}"\n${usage}`);
    return value;
  };
  return {
    runs: whole("runs", values.runs, 1),
    hogs: whole("hogs", values.hogs, availableParallelism()),
    command: positionals.length > 0 ? positionals : ["npm", "test"],
  };
}

/** Starts one busy-looping Node process per hog; returns them for `stopHogs`. */
export function startHogs(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
  );
}

/** Kills the hogs (synchronous, so it also works from an `exit` handler). */
export function stopHogs(hogs: readonly ChildProcess[]): void {
  for (const hog of hogs) if (hog.exitCode === null && hog.signalCode === null) hog.kill("SIGKILL");
}

/** The command running now, so an interruption can pass its signal on. */
let running: ChildProcess | undefined;

function runOnce(command: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const [file, ...args] = command;
    // Its own process group, so an interruption reaches the whole tree (npm → vitest → workerd),
    // not only the npm at its top.
    const child = spawn(file!, args, { stdio: "inherit", detached: true });
    running = child;
    child.on("error", () => resolve(127));
    child.on("exit", (code, signal) => {
      running = undefined;
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

function sampleLoad(): { stop(): LoadedRun["load"] } {
  const samples = [loadavg()[0]!];
  const timer = setInterval(() => samples.push(loadavg()[0]!), 5_000);
  return {
    stop() {
      clearInterval(timer);
      samples.push(loadavg()[0]!);
      const round = (value: number) => Math.round(value * 100) / 100;
      return {
        min: round(Math.min(...samples)),
        mean: round(samples.reduce((sum, value) => sum + value, 0) / samples.length),
        max: round(Math.max(...samples)),
      };
    },
  };
}

/** Runs the command `runs` times with every core kept busy; resolves to each run's figures. */
export async function runUnderLoad(
  options: LoadOptions,
  print: (line: string) => void = (line) => console.error(line),
): Promise<LoadedRun[]> {
  const hogs = startHogs(options.hogs);
  const stop = () => stopHogs(hogs);
  process.once("exit", stop);
  const interrupted = (signal: NodeJS.Signals) => {
    stop();
    // The command runs in a process group of its own: pass the signal on to all of it.
    if (running?.pid !== undefined) {
      try {
        process.kill(-running.pid, signal);
      } catch {
        // The group is gone already.
      }
    }
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  const results: LoadedRun[] = [];
  try {
    print(
      `under load: ${options.hogs} busy process(es) on ${availableParallelism()} core(s); running \`${options.command.join(" ")}\` ${options.runs}×`,
    );
    for (let run = 1; run <= options.runs; run++) {
      const load = sampleLoad();
      const started = performance.now();
      const exitCode = await runOnce(options.command);
      const result = {
        run,
        exitCode,
        wallMs: Math.round(performance.now() - started),
        load: load.stop(),
      };
      results.push(result);
      print(describeRun(result));
    }
  } finally {
    stop();
    process.off("exit", stop);
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
  }
  return results;
}

/** One line per run: `run 1: exit 0 in 5 min 12 s · load 1-min avg 5.1 (3.9–6.2)`. */
export function describeRun(result: LoadedRun): string {
  const seconds = Math.round(result.wallMs / 1000);
  const duration =
    seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
  return `run ${result.run}: exit ${result.exitCode} in ${duration} · load (1-min average) ${result.load.mean} (${result.load.min}–${result.load.max})`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let options: LoadOptions;
  try {
    options = parseLoadOptions(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  const results = await runUnderLoad(options);
  process.exitCode = results.every((result) => result.exitCode === 0) ? 0 : 1;
}
