/**
 * @module
 * Drives load: sequential calls for latency, a fixed number of calls at fixed concurrency for
 * throughput, and interleaved A/B blocks so that drift on a shared machine (other jobs, CPU
 * frequency, garbage collection) lands on both sides of a comparison alike.
 */

import { Agent, request } from "node:http";

/** One call of a benchmark; it throws when the answer is wrong (status, served step...). */
export type Call = (index: number) => Promise<void>;

/** An answer as a call checks it. */
export interface Answer {
  readonly status: number;
  /** A response header (lower-case name). */
  header(name: string): string | undefined;
  readonly text: string;
}

/** Sends one POST and reads the whole answer: how a load generator talks to a server. */
export type Post = (
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
) => Promise<Answer>;

/** `fetch`, as an application would send. */
export const fetchPost: Post = async (url, headers, body) => {
  const response = await fetch(url, { method: "POST", headers, body });
  const text = await response.text();
  return {
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    text,
  };
};

/**
 * `node:http` with a keep-alive agent of `connections` sockets: about a third of `fetch`'s CPU per
 * call, so a load generator that shares a core with mock providers is less often what limits a
 * fast server's requests per second. Both sides of a comparison use the same one.
 */
export function keepAlivePost(connections: number): { readonly post: Post; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, scheduling: "lifo" });
  const post: Post = (url, headers, body) =>
    new Promise((resolve, reject) => {
      const outgoing = request(url, {
        agent,
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      });
      outgoing.on("error", reject);
      outgoing.on("response", (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () => {
          const value = (name: string) => {
            const found = response.headers[name];
            return Array.isArray(found) ? found[0] : found;
          };
          resolve({
            status: response.statusCode ?? 0,
            header: value,
            text: Buffer.concat(chunks).toString("utf8"),
          });
        });
      });
      outgoing.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/** Samples from a run of calls. */
export interface LoadResult {
  /** Latency of each successful call, in ms. */
  readonly latencies: number[];
  /** Calls that threw. */
  readonly failures: number;
  /** The first failure's message, to show why. */
  readonly firstFailure: string | undefined;
  /** Wall time of the whole run, in ms. */
  readonly elapsedMs: number;
}

export interface LoadOptions {
  readonly count: number;
  /** Calls in flight at once; 1 for sequential. */
  readonly concurrency?: number;
  /** Clock in ms; `performance.now` by default. */
  readonly now?: () => number;
}

/** Runs `count` calls with at most `concurrency` in flight and times each. */
export async function runLoad(call: Call, options: LoadOptions): Promise<LoadResult> {
  const now = options.now ?? (() => performance.now());
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 1, options.count));
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const started = now();
  const worker = async () => {
    while (next < options.count) {
      const index = next++;
      const callStarted = now();
      try {
        await call(index);
        latencies.push(now() - callStarted);
      } catch (error) {
        failures++;
        firstFailure ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, failures, firstFailure, elapsedMs: now() - started };
}

/** Two runs' samples as one: latencies joined, failures and times added. */
export function mergeLoads(first: LoadResult, second: LoadResult): LoadResult {
  return {
    latencies: first.latencies.concat(second.latencies),
    failures: first.failures + second.failures,
    firstFailure: first.firstFailure ?? second.firstFailure,
    elapsedMs: first.elapsedMs + second.elapsedMs,
  };
}

/** Results of an interleaved comparison, each side's blocks merged. */
export interface InterleavedResult<Name extends string> {
  readonly sides: Record<Name, LoadResult>;
  /** The order the blocks ran in, e.g. `["a", "b", "b", "a"]`. */
  readonly schedule: Name[];
  /** Each round's block of every side, in order: small repeated runs, for the noise (noise.ts). */
  readonly rounds: Record<Name, LoadResult>[];
}

export interface InterleaveOptions {
  /** Calls per side in total, after the warm-up. */
  readonly count: number;
  /** Blocks per side; sides alternate A B B A A B… so neither always goes first. */
  readonly blocks: number;
  /** Calls per side before measuring (not recorded). */
  readonly warmup: number;
  readonly concurrency?: number;
  readonly now?: () => number;
  /** Awaited before each measured block (e.g. to read a process's CPU time). */
  readonly beforeBlock?: (name: string) => void | Promise<void>;
  /** Awaited after each measured block, for progress output and per-side accounting. */
  readonly onBlock?: (done: number, total: number, name: string) => void | Promise<void>;
}

/**
 * Runs each side's calls in alternating blocks after warming every side up, and merges each
 * side's samples. Throughput from a merged result is calls over the sum of its blocks' times.
 */
export async function runInterleaved<Name extends string>(
  sides: Readonly<Record<Name, Call>>,
  options: InterleaveOptions,
): Promise<InterleavedResult<Name>> {
  const names = Object.keys(sides) as Name[];
  for (const name of names) {
    await runLoad(sides[name], { ...options, count: options.warmup });
  }
  const merged = Object.fromEntries(
    names.map((name) => [
      name,
      { latencies: [], failures: 0, firstFailure: undefined, elapsedMs: 0 } as LoadResult,
    ]),
  ) as Record<Name, LoadResult>;
  const schedule: Name[] = [];
  const rounds: Record<Name, LoadResult>[] = [];
  const perBlock = Math.max(1, Math.floor(options.count / options.blocks));
  for (let round = 0; round < options.blocks; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    const thisRound = {} as Record<Name, LoadResult>;
    rounds.push(thisRound);
    for (const name of order) {
      const count = round === options.blocks - 1 ? options.count - perBlock * round : perBlock;
      await options.beforeBlock?.(name);
      const result = await runLoad(sides[name], { ...options, count });
      thisRound[name] = result;
      const sum = merged[name];
      merged[name] = mergeLoads(sum, result);
      schedule.push(name);
      await options.onBlock?.(schedule.length, options.blocks * names.length, name);
    }
  }
  return { sides: merged, schedule, rounds };
}
