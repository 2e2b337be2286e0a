/**
 * @module
 * A server in a child process of its own (a gateway under test gets a core to itself, apart
 * from the load generator and the mock providers). The child reports
 * `{ type: "listening", address, port }` over IPC once bound; the parent refuses any address
 * other than 127.0.0.1 and stops the child (by its pid) when done.
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

/** What a child sends once its server is bound. */
export interface ListeningMessage {
  readonly type: "listening";
  readonly address: string;
  readonly port: number;
}

export interface ChildServerOptions {
  /** Name for errors: `the emulator`, `Portkey`. */
  readonly name: string;
  readonly modulePath: string;
  readonly args?: readonly string[];
  readonly execArgv?: readonly string[];
  /** Sent to the child right after it starts (its settings). */
  readonly message?: unknown;
  /** How long the child may take to bind; default 30 s. */
  readonly startTimeoutMs?: number;
}

/** A running child server. */
export interface ChildServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Peak resident memory of the child so far (Linux `VmHWM`), or undefined elsewhere. */
  peakRssBytes(): Promise<number | undefined>;
  /** Resident memory of the child now (Linux `VmRSS`), or undefined elsewhere. */
  rssBytes(): Promise<number | undefined>;
  /** CPU time (user + system) the child has used so far, in ms (Linux), else undefined. */
  cpuTimeMs(): number | undefined;
  close(): Promise<void>;
}

/** Forks the child and waits until it listens on 127.0.0.1. */
export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const stderr: string[] = [];
  const child = fork(options.modulePath, [...(options.args ?? [])], {
    execArgv: [...(options.execArgv ?? [])],
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    env: { ...process.env, NODE_ENV: "production" },
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    if (stderr.length < 50) stderr.push(chunk.toString("utf8"));
  });
  const close = () => stopChild(child);
  try {
    if (options.message !== undefined) child.send(options.message as object);
    const message = await waitForListening(child, options, stderr);
    if (message.address !== "127.0.0.1") {
      throw new Error(
        `${options.name} bound ${message.address}:${message.port}, not 127.0.0.1; refusing to benchmark a server reachable from other machines.`,
      );
    }
    const pid = child.pid!;
    return {
      url: `http://127.0.0.1:${message.port}`,
      port: message.port,
      pid,
      peakRssBytes: () => statusBytes(pid, "VmHWM"),
      rssBytes: () => statusBytes(pid, "VmRSS"),
      cpuTimeMs: () => cpuTime(pid),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function waitForListening(
  child: ChildProcess,
  options: ChildServerOptions,
  stderr: readonly string[],
): Promise<ListeningMessage> {
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  return new Promise<ListeningMessage>((resolve, reject) => {
    const timer = setTimeout(
      () => fail(`did not start listening within ${timeoutMs} ms`),
      timeoutMs,
    );
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.off("message", onMessage);
      const output = stderr.join("").trim().slice(-2_000);
      reject(new Error(`${options.name} ${reason}${output ? `:\n${output}` : "."}`));
    };
    const onMessage = (message: unknown) => {
      const listening = message as Partial<ListeningMessage> | null;
      if (listening?.type !== "listening" || typeof listening.port !== "number") return;
      clearTimeout(timer);
      child.off("message", onMessage);
      resolve(listening as ListeningMessage);
    };
    child.on("message", onMessage);
    child.once("exit", (code, signal) => fail(`exited (${signal ?? `code ${code}`})`));
    child.once("error", (error) => fail(`could not start (${error.message})`));
  });
}

/** SIGTERM, then SIGKILL after 3 s; resolves once the child has exited. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await exited;
  clearTimeout(timer);
}

/** A memory figure of `/proc/<pid>/status` (`VmHWM`: peak resident, `VmRSS`: resident now). */
async function statusBytes(pid: number, field: "VmHWM" | "VmRSS"): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

let ticksPerSecond: number | undefined;

/** Linux `/proc/<pid>/stat` utime + stime, in ms. */
export function cpuTime(pid: number): number | undefined {
  try {
    ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" })) || 100;
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start at the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / ticksPerSecond : undefined;
  } catch {
    return undefined;
  }
}
