/**
 * @module
 * A worker thread of the parallel events reader (`events-parallel.ts`): reads its byte range of
 * the file with the same line reader as a single pass (`events-lines.ts`), adds each event to one
 * aggregator per requested aggregation, and posts the counts back as plain data.
 */
import { createReadStream } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { StepRateAggregator } from "../aggregate.ts";
import { AnalyticsError } from "../errors.ts";
import { type LineCount, readEventBatches } from "./events-lines.ts";
import type { EventsWorkerInput, EventsWorkerOutput } from "./events-worker-protocol.ts";
import { SourceTally } from "./types.ts";

/** What a worker sends when its part holds no event: the parent then reads in one thread. */
const declined: EventsWorkerOutput = {
  lines: 0,
  records: 0,
  events: 0,
  malformed: 0,
  malformedSamples: [],
  states: [],
};

async function main(input: EventsWorkerInput): Promise<EventsWorkerOutput> {
  const stats = new SourceTally(input.malformedSamples);
  const count: LineCount = { events: 0, lines: 0 };
  const aggregators = input.options.map((options) => new StepRateAggregator(options));
  const stream = createReadStream(input.path, {
    start: input.range.start,
    end: input.range.end - 1,
    highWaterMark: 1024 * 1024,
  });
  const batches = readEventBatches(stream, stats, count, {
    path: input.path,
    ...(input.maxLineBytes === undefined ? {} : { maxLineBytes: input.maxLineBytes }),
    fromFileStart: input.fromFileStart,
  });
  try {
    for await (const batch of batches) {
      for (const aggregator of aggregators) {
        for (const event of batch) aggregator.add(event);
      }
    }
  } catch (error) {
    // Not an events file: no event counted, so the parent reads the file in one thread, which
    // says so with the very error a single pass gives.
    if (AnalyticsError.isInstance(error) && input.fromFileStart) return declined;
    throw error;
  }
  return {
    lines: count.lines,
    records: stats.records,
    events: count.events,
    malformed: stats.malformed,
    malformedSamples: stats.malformedSamples,
    states: aggregators.map((aggregator) => aggregator.state()),
  };
}

if (parentPort !== null) {
  const port = parentPort;
  main(workerData as EventsWorkerInput).then(
    (output) => port.postMessage(output),
    (error: unknown) => {
      throw error;
    },
  );
}
