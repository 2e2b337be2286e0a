/**
 * @module
 * Source (1): a JSON-lines events file written by the client, one `CallEvent` per line, of any
 * size, streamed line by line in constant memory; `-` reads stdin. Blank lines are skipped;
 * malformed lines (bad JSON, or a record the event schema rejects) are counted with their line
 * numbers and skipped, never fatal (`events-lines.ts`). A large file is aggregated by several
 * threads at once, each over a part of it (`events-parallel.ts`), to the same figures.
 */
import type { CallEvent } from "../../client/event.ts";
import { type LineCount, notAnEventsFile, readEventBatches } from "./events-lines.ts";
import { aggregateInParallel } from "./events-parallel.ts";
import { type LineInputOptions, openInput } from "./read-lines.ts";
import { type EventSource, SourceTally } from "./types.ts";

export interface EventsFileOptions extends LineInputOptions {
  /** Malformed lines kept as samples (default 5). */
  readonly malformedSamples?: number;
  /**
   * Threads that aggregate a file at once (default: the machine's cores, at most 4, for a file
   * of at least 64 MiB; one otherwise, and always for stdin). 1 reads in this thread only.
   */
  readonly threads?: number;
  /** Bytes of a part handed to a thread (default 16 MiB; a few parts a thread, at least one). */
  readonly partBytes?: number;
}

/** An events file (or `-` for stdin) as an event source. */
export function eventsFileSource(path: string, options: EventsFileOptions = {}): EventSource {
  const stats = new SourceTally(options.malformedSamples);
  async function* eventBatches(): AsyncGenerator<CallEvent[]> {
    const input = await openInput(path, options);
    const count: LineCount = { events: 0, lines: 0 };
    yield* readEventBatches(input, stats, count, {
      path,
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      fromFileStart: true,
    });
    if (count.events === 0 && stats.malformed > 0) throw notAnEventsFile(path, stats);
  }
  return {
    kind: "events",
    name: path === "-" ? "stdin" : path,
    stats,
    eventBatches,
    async *events(): AsyncGenerator<CallEvent> {
      for await (const batch of eventBatches()) yield* batch;
    },
    aggregateAll: (list) => aggregateInParallel(path, options, stats, list),
  };
}
