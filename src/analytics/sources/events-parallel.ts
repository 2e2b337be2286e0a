/**
 * @module
 * Aggregates a large events file with several threads at once: the file is cut into line-aligned
 * byte ranges (`file-ranges.ts`), one `worker_threads` worker reads and aggregates each
 * (`events-worker.ts`, the same line reader and aggregator as one thread uses), and their counts
 * are merged in file order. The figures are the ones a single pass gives: counts and latency
 * sketches merge exactly, costs are exact sums, malformed lines keep their file-wide numbers and
 * the first samples in file order. Memory stays flat: each worker holds an aggregate, never the
 * events. When a file is small, or is stdin, or its first part holds no event (then the single
 * pass says why), this declines and the caller reads in one thread.
 */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { type AggregateOptions, StepRateAggregator } from "../aggregate.ts";
import { notAnEventsFile } from "./events-lines.ts";
import type { EventsWorkerInput, EventsWorkerOutput } from "./events-worker-protocol.ts";
import { lineAlignedRanges } from "./file-ranges.ts";
import type { LineInputOptions } from "./read-lines.ts";
import type { SourceTally } from "./types.ts";

/** Files smaller than this are read in one thread: starting workers would cost more. */
export const parallelFromBytes = 64 * 1024 * 1024;
/** At most this many threads by default. */
const maxDefaultThreads = 4;

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

function runWorker(input: EventsWorkerInput): Promise<EventsWorkerOutput> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(input);
    let settled = false;
    worker.once("message", (output: EventsWorkerOutput) => {
      settled = true;
      resolve(output);
    });
    worker.once("error", (error) => {
      settled = true;
      reject(error);
    });
    worker.once("exit", (code) => {
      if (!settled) reject(new Error(`the events reader thread exited with ${code}`));
    });
  });
}

/**
 * One aggregator per entry of `list` over every event of the file at `path`, read by several
 * threads; null when the file is better read in one thread (then nothing was counted).
 */
export async function aggregateInParallel(
  path: string,
  options: LineInputOptions & { readonly malformedSamples?: number; readonly threads?: number },
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
  const ranges = await lineAlignedRanges(path, size, threads);
  if (ranges.length < 2) return null;
  const outputs = await Promise.all(
    ranges.map((range, index) =>
      runWorker({
        path,
        range,
        fromFileStart: index === 0,
        ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
        malformedSamples: stats.sampleLimit,
        options: list,
      }),
    ),
  );
  if ((outputs[0]?.events ?? 0) === 0) return null;
  const aggregators = list.map((aggregateOptions) => new StepRateAggregator(aggregateOptions));
  let lineOffset = 0;
  let events = 0;
  for (const output of outputs) {
    stats.records += output.records;
    for (const sample of output.malformedSamples) {
      stats.reject(sample.line + lineOffset, sample.reason);
    }
    stats.malformed += output.malformed - output.malformedSamples.length;
    output.states.forEach((state, index) => {
      aggregators[index]?.merge(state);
    });
    lineOffset += output.lines;
    events += output.events;
  }
  if (events === 0 && stats.malformed > 0) throw notAnEventsFile(path, stats);
  return aggregators;
}
