/**
 * @module
 * Source (1): a JSON-lines events file written by the client, one `CallEvent` per line, of any
 * size, streamed line by line in constant memory; `-` reads stdin. Blank lines are skipped;
 * malformed lines (bad JSON, or a record the event schema rejects) are counted with their line
 * numbers and skipped, never fatal.
 */
import type { CallEvent } from "../../client/event.ts";
import { parseEventLine } from "../event-schema.ts";
import { type LineInputOptions, openInput, readLines } from "./read-lines.ts";
import { type EventSource, SourceTally } from "./types.ts";

export interface EventsFileOptions extends LineInputOptions {
  /** Malformed lines kept as samples (default 5). */
  readonly malformedSamples?: number;
}

/** An events file (or `-` for stdin) as an event source. */
export function eventsFileSource(path: string, options: EventsFileOptions = {}): EventSource {
  const stats = new SourceTally(options.malformedSamples);
  return {
    kind: "events",
    name: path === "-" ? "stdin" : path,
    stats,
    async *events(): AsyncGenerator<CallEvent> {
      const input = await openInput(path, options);
      for await (const { line, number } of readLines(input)) {
        if (line.trim() === "") continue;
        stats.records += 1;
        const parsed = parseEventLine(line);
        if (parsed.ok) yield parsed.event;
        else stats.reject(number, parsed.reason);
      }
    },
  };
}
