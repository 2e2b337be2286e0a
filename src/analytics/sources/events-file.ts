/**
 * @module
 * Source (1): a JSON-lines events file written by the client, one `CallEvent` per line, of any
 * size, streamed line by line in constant memory; `-` reads stdin. Blank lines are skipped;
 * malformed lines (bad JSON, or a record the event schema rejects) are counted with their line
 * numbers and skipped, never fatal.
 */
import type { CallEvent } from "../../client/event.ts";
import { AnalyticsError } from "../errors.ts";
import { parseEventLine } from "../event-schema.ts";
import {
  defaultMaxLineBytes,
  type LineInputOptions,
  openInput,
  readLineBatches,
  tooLongReason,
} from "./read-lines.ts";
import { type EventSource, SourceTally } from "./types.ts";

export interface EventsFileOptions extends LineInputOptions {
  /** Malformed lines kept as samples (default 5). */
  readonly malformedSamples?: number;
}

/** A file whose first this-many records are all malformed is not an events file. */
const notEventsAfter = 100;

function notAnEventsFile(path: string, stats: SourceTally): AnalyticsError {
  const first = stats.malformedSamples[0];
  return new AnalyticsError({
    code: "analytics_source_invalid",
    message:
      `${path === "-" ? "stdin" : path} is not an events file: none of its first ${stats.malformed.toLocaleString("en-US")} record(s) is a call event` +
      `${first ? ` (line ${first.line}: ${first.reason})` : ""}. Give the JSON-lines file the client writes, or use --source analytics-engine for an Analytics Engine export.`,
  });
}

/** An events file (or `-` for stdin) as an event source. */
export function eventsFileSource(path: string, options: EventsFileOptions = {}): EventSource {
  const stats = new SourceTally(options.malformedSamples);
  async function* eventBatches(): AsyncGenerator<CallEvent[]> {
    const input = await openInput(path, options);
    const max = options.maxLineBytes ?? defaultMaxLineBytes;
    let events = 0;
    for await (const lines of readLineBatches(input, { maxLineBytes: max })) {
      const batch: CallEvent[] = [];
      for (const { line, number, bytes } of lines) {
        if (line === null) {
          stats.records += 1;
          stats.reject(number, tooLongReason(bytes, max));
          continue;
        }
        if (line.trim() === "") continue;
        stats.records += 1;
        const parsed = parseEventLine(line);
        if (parsed.ok) {
          events += 1;
          batch.push(parsed.event);
        } else {
          stats.reject(number, parsed.reason);
          if (events === 0 && stats.malformed >= notEventsAfter) throw notAnEventsFile(path, stats);
        }
      }
      if (batch.length > 0) yield batch;
    }
    if (events === 0 && stats.malformed > 0) throw notAnEventsFile(path, stats);
  }
  return {
    kind: "events",
    name: path === "-" ? "stdin" : path,
    stats,
    eventBatches,
    async *events(): AsyncGenerator<CallEvent> {
      for await (const batch of eventBatches()) yield* batch;
    },
  };
}
