/**
 * @module
 * Aggregates a large events file with several threads at once: the file is cut into line-aligned
 * byte ranges (`file-ranges.ts`, a few per thread), `worker_threads` workers take the next one
 * as they finish the last (`events-worker.ts`, the same line reader and aggregator as one thread
 * uses), and their counts are merged, the tallies in file order. The figures are the ones a single pass gives: counts and latency
 * sketches merge exactly, costs are exact sums, malformed lines keep their file-wide numbers and
 * the first samples in file order. Memory stays flat: each worker holds an aggregate, never the
 * events. When a file is small, or is stdin, or its first part holds no event (then the single
 * pass says why), this declines and the caller reads in one thread.
 */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { AggregatorState } from "../aggregate.ts";
import { type AggregateOptions, StepRateAggregator } from "../aggregate.ts";
import { notAnEventsFile } from "./events-lines.ts";
import type {
  EventsWorkerInput,
  PartAssignment,
  PartTally,
  WorkerMessage,
} from "./events-worker-protocol.ts";
import { type ByteRange, lineAlignedRanges } from "./file-ranges.ts";
import type { LineInputOptions } from "./read-lines.ts";
import type { SourceTally } from "./types.ts";

/** Files smaller than this are read in one thread: starting workers would cost more. */
export const parallelFromBytes = 64 * 1024 * 1024;
/** At most this many threads by default. */
const maxDefaultThreads = 4;
/** Parts a file is cut into per thread, each at least {@link minPartBytes} (but one a thread). */
const partsPerThread = 4;
const minPartBytes = 16 * 1024 * 1024;

/**
 * The worker thread: the built module under `dist/analytics/` when this runs built; when it runs
 * from the sources (the tests), the TypeScript module beside this one, loaded through tsx.
 */
function startWorker(input: EventsWorkerInput): Worker {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) {
    return new Worker(new URL("../analytics/events-worker.js", here), { workerData: input });
  }
  const source = JSON.stringify(new URL("./events-worker.ts", here).href);
  return new Worker(
    `import("tsx/esm/api").then(({ register }) => { register(); return import(${source}); });`,
    { eval: true, workerData: input },
  );
}

/** What the threads sent: each part's tally, and each worker's aggregates. */
interface Collected {
  readonly tallies: PartTally[];
  readonly states: (readonly AggregatorState[])[];
}

/**
 * Runs `threads` workers over `parts`, handing the next part to whichever asks first (a part
 * starting at the file's first line goes first), until every part is read.
 */
function runWorkers(
  input: EventsWorkerInput,
  parts: readonly ByteRange[],
  threads: number,
): Promise<Collected> {
  return new Promise((resolve, reject) => {
    const collected: Collected = { tallies: [], states: [] };
    const workers: Worker[] = [];
    let next = 0;
    let running = threads;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      for (const worker of workers) void worker.terminate();
      reject(error);
    };
    for (let thread = 0; thread < threads; thread += 1) {
      const worker = startWorker(input);
      workers.push(worker);
      let done = false;
      worker.on("message", (message: WorkerMessage) => {
        if (message.kind === "next") {
          const declined = collected.tallies.some((tally) => tally.declined);
          const range = declined ? undefined : parts[next];
          const assignment: PartAssignment =
            range === undefined
              ? { index: null }
              : { index: next, range, fromFileStart: range.start === 0 };
          if (range !== undefined) next += 1;
          worker.postMessage(assignment);
        } else if (message.kind === "part") {
          collected.tallies.push(message.tally);
        } else {
          done = true;
          collected.states.push(message.states);
          running -= 1;
          void worker.terminate();
          if (running === 0 && !failed) resolve(collected);
        }
      });
      worker.once("error", fail);
      worker.once("exit", (code) => {
        if (!done) fail(new Error(`the events reader thread exited with ${code}`));
      });
    }
  });
}

/**
 * One aggregator per entry of `list` over every event of the file at `path`, read by several
 * threads; null when the file is better read in one thread (then nothing was counted).
 */
export async function aggregateInParallel(
  path: string,
  options: LineInputOptions & {
    readonly malformedSamples?: number;
    readonly threads?: number;
    readonly partBytes?: number;
  },
  stats: SourceTally,
  list: readonly AggregateOptions[],
): Promise<StepRateAggregator[] | null> {
  if (path === "-" || options.threads === 1) return null;
  const size = await stat(path).then(
    (found) => (found.isFile() ? found.size : null),
    () => null,
  );
  // A file this thread cannot read is left to the single pass, which says why in plain words.
  if (
    size === null ||
    !(await access(path, constants.R_OK).then(
      () => true,
      () => false,
    ))
  ) {
    return null;
  }
  const threads =
    options.threads ??
    (size >= parallelFromBytes ? Math.min(availableParallelism(), maxDefaultThreads) : 1);
  if (threads <= 1) return null;
  // A few parts a thread, so that a thread the machine runs less often reads fewer of them.
  const partBytes = options.partBytes ?? minPartBytes;
  const parts = Math.max(threads, Math.min(threads * partsPerThread, Math.floor(size / partBytes)));
  const ranges = await lineAlignedRanges(path, size, parts);
  if (ranges.length < 2) return null;
  const { tallies, states } = await runWorkers(
    {
      path,
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      malformedSamples: stats.sampleLimit,
      options: list,
    },
    ranges,
    Math.min(threads, ranges.length),
  );
  const byIndex = [...tallies].sort((a, b) => a.index - b.index);
  const first = byIndex[0];
  if (first === undefined || first.index !== 0 || first.declined || first.events === 0) return null;
  const aggregators = list.map((aggregateOptions) => new StepRateAggregator(aggregateOptions));
  for (const workerStates of states) {
    workerStates.forEach((state, index) => {
      aggregators[index]?.merge(state);
    });
  }
  let lineOffset = 0;
  let events = 0;
  for (const tally of byIndex) {
    stats.records += tally.records;
    for (const sample of tally.malformedSamples) {
      stats.reject(sample.line + lineOffset, sample.reason);
    }
    stats.malformed += tally.malformed - tally.malformedSamples.length;
    lineOffset += tally.lines;
    events += tally.events;
  }
  if (events === 0 && stats.malformed > 0) throw notAnEventsFile(path, stats);
  return aggregators;
}
