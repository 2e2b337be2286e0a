/**
 * @module
 * A worker thread of the parallel events reader (`events-parallel.ts`): asks for parts of the
 * file until none is left, reads each with the same line reader as a single pass
 * (`events-lines.ts`), adds every event to one aggregator per requested aggregation, reports each
 * part's tally, and at the end sends its aggregates as plain data.
 */
import { createReadStream } from "node:fs";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { StepRateAggregator } from "../aggregate.ts";
import { AnalyticsError } from "../errors.ts";
import { type LineCount, readEventBatches } from "./events-lines.ts";
import type {
  EventsWorkerInput,
  PartAssignment,
  PartTally,
  WorkerMessage,
} from "./events-worker-protocol.ts";
import { SourceTally } from "./types.ts";

function nextPart(port: MessagePort): Promise<PartAssignment> {
  return new Promise((resolve) => {
    port.once("message", resolve);
    port.postMessage({ kind: "next" } satisfies WorkerMessage);
  });
}

async function readPart(
  input: EventsWorkerInput,
  part: Extract<PartAssignment, { range: unknown }>,
  aggregators: readonly StepRateAggregator[],
): Promise<PartTally> {
  const stats = new SourceTally(input.malformedSamples);
  const count: LineCount = { events: 0, lines: 0 };
  const stream = createReadStream(input.path, {
    start: part.range.start,
    end: part.range.end - 1,
    highWaterMark: 1024 * 1024,
  });
  const batches = readEventBatches(stream, stats, count, {
    path: input.path,
    ...(input.maxLineBytes === undefined ? {} : { maxLineBytes: input.maxLineBytes }),
    fromFileStart: part.fromFileStart,
  });
  try {
    for await (const batch of batches) {
      for (const aggregator of aggregators) {
        for (const event of batch) aggregator.add(event);
      }
    }
  } catch (error) {
    // Not an events file: the parent reads the file in one thread, which says so with the very
    // error a single pass gives.
    if (AnalyticsError.isInstance(error) && part.fromFileStart) {
      stream.destroy();
      return { ...tallyOf(part.index, stats, count), declined: true };
    }
    throw error;
  }
  return tallyOf(part.index, stats, count);
}

function tallyOf(index: number, stats: SourceTally, count: LineCount): PartTally {
  return {
    index,
    declined: false,
    lines: count.lines,
    records: stats.records,
    events: count.events,
    malformed: stats.malformed,
    malformedSamples: stats.malformedSamples,
  };
}

async function main(port: MessagePort, input: EventsWorkerInput): Promise<void> {
  const aggregators = input.options.map((options) => new StepRateAggregator(options));
  for (;;) {
    const part = await nextPart(port);
    if (part.index === null) break;
    const tally = await readPart(input, part, aggregators);
    port.postMessage({ kind: "part", tally } satisfies WorkerMessage);
    // After a declined first part the parent reads in one thread; nothing else is needed.
    if (tally.declined) break;
  }
  const states = aggregators.map((aggregator) => aggregator.state());
  port.postMessage({ kind: "done", states } satisfies WorkerMessage);
}

if (parentPort !== null) {
  const port = parentPort;
  main(port, workerData as EventsWorkerInput).catch((error: unknown) => {
    throw error;
  });
}
