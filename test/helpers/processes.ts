/**
 * Processes a test starts, and how they are always stopped. `startProcess` runs a command in its
 * own process group (so `wrangler dev` and the workerd it starts stop together), collects its
 * output and waits for a line; `stop()` ends the whole group, SIGTERM first, then SIGKILL. The
 * setup file `test/setup/no-orphans.ts` stops whatever a test file left behind and fails it.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";

/** A process found running under another. */
export interface ProcessEntry {
  readonly pid: number;
  readonly command: string;
}

/** Every process below `root` in the process tree (children, their children, …). */
export async function descendantsOf(root: number): Promise<ProcessEntry[]> {
  const { stdout } = await promisify(execFile)("ps", ["-A", "-o", "pid=,ppid=,comm="]);
  const children = new Map<number, ProcessEntry[]>();
  for (const line of stdout.split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.+?)\s*$/.exec(line);
    if (!match) continue;
    const [, pid, parent, command] = match;
    const list = children.get(Number(parent)) ?? [];
    list.push({ pid: Number(pid), command: command! });
    children.set(Number(parent), list);
  }
  const found: ProcessEntry[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      // The `ps` that made this list is a child too while it runs.
      if (child.command === "ps") continue;
      found.push(child);
      visit(child.pid);
    }
  };
  visit(root);
  return found;
}

/** Whether a process (or, for a negative id, any process of a group) is still running. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(target: number, name: NodeJS.Signals): void {
  try {
    process.kill(target, name);
  } catch {
    // Already gone.
  }
}

/**
 * Stops processes (or, for negative ids, process groups): `first` (SIGTERM by default), then
 * SIGKILL for any still running after `graceMs`.
 */
export async function stopProcesses(
  targets: readonly number[],
  graceMs = 3_000,
  first: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  for (const target of targets) signal(target, first);
  for (let waited = 0; waited < graceMs; waited += 50) {
    if (!targets.some((target) => alive(target))) return;
    await delay(50);
  }
  for (const target of targets) signal(target, "SIGKILL");
}

/** Process groups started by `startProcess` and not stopped yet, for the no-orphans check. */
export const runningGroups = new Set<number>();

/** A command started by a test. */
export interface StartedProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far, interleaved as it came. */
  output(): string;
  /** What was written to stdout so far. */
  stdout(): string;
  /** What was written to stderr so far. */
  stderr(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves with the exit code, or -1 when a signal ended the process. */
  readonly exited: Promise<number>;
  /** Stops the process and everything it started; resolves once it has exited. */
  stop(signalName?: NodeJS.Signals): Promise<number>;
}

/** Starts `file args` in its own process group; call `stop()` in afterEach/afterAll. */
export function startProcess(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {},
): StartedProcess {
  const child = spawn(file, [...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const group = child.pid;
  if (group !== undefined) runningGroups.add(group);
  let text = "";
  const streams = { stdout: "", stderr: "" };
  const listeners = new Set<() => void>();
  const onData = (name: "stdout" | "stderr") => (chunk: Buffer) => {
    const piece = chunk.toString("utf8");
    text += piece;
    streams[name] += piece;
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", onData("stdout"));
  child.stderr?.on("data", onData("stderr"));
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  else child.stdin?.end();
  // "close", not "exit": by then stdout and stderr have been read to the end.
  const exited = new Promise<number>((resolve) => {
    child.on("error", () => resolve(127));
    child.on("close", (code) => {
      resolve(code ?? -1);
    });
  }).finally(() => {
    // A group whose leader and children are all gone needs no stopping.
    if (group !== undefined && !alive(-group)) runningGroups.delete(group);
    for (const listener of listeners) listener();
  });
  let exitCode: number | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  return {
    child,
    output: () => text,
    stdout: () => streams.stdout,
    stderr: () => streams.stderr,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (match) {
            listeners.delete(check);
            resolve(match);
          } else if (exitCode !== undefined) {
            listeners.delete(check);
            reject(
              new Error(
                `${file} exited (${exitCode}) before printing ${pattern}; it printed:\n${text}`,
              ),
            );
          }
        };
        listeners.add(check);
        check();
      });
    },
    exited,
    async stop(signalName: NodeJS.Signals = "SIGTERM") {
      if (group !== undefined) {
        // The whole group: a leader that has exited may have left children (workerd) in it.
        await stopProcesses([-group], 5_000, signalName);
        runningGroups.delete(group);
      }
      return exited;
    },
  };
}
