/**
 * @module
 * The lines of an events file as `CallEvent`s, batch by batch: what the events-file source reads
 * in one pass and what each thread of a parallel read runs over its part of the file. Blank lines
 * are skipped; malformed lines (bad JSON, a record the event schema rejects, a line over the
 * length limit) are counted with their line numbers and skipped, never fatal. A file whose first
 * records are all malformed is not an events file.
 */
import type { CallEvent } from "../../client/event.ts";
import { AnalyticsError } from "../errors.ts";
import { parseEventLine } from "../event-schema.ts";
import { defaultMaxLineBytes, readLineBatches, tooLongReason } from "./read-lines.ts";
import type { SourceTally } from "./types.ts";

/** A file whose first this-many records are all malformed is not an events file. */
export const notEventsAfter = 100;

/** The error for a file none of whose first records is an event. */
export function notAnEventsFile(path: string, stats: SourceTally): AnalyticsError {
  const first = stats.malformedSamples[0];
  return new AnalyticsError({
    code: "analytics_source_invalid",
    message:
      `${path === "-" ? "stdin" : path} is not an events file: none of its first ${stats.malformed.toLocaleString("en-US")} record(s) is a call event` +
      `${first ? ` (line ${first.line}: ${first.reason})` : ""}. Give the JSON-lines file the client writes, or use --source analytics-engine for an Analytics Engine export.`,
  });
}

/** What {@link readEventBatches} counts besides the tally. */
export interface LineCount {
  /** Events read so far. */
  events: number;
  /** Lines read so far (the number of the last line). */
  lines: number;
}

/**
 * Yields the events of `input` a chunk at a time, counting records and malformed lines in
 * `stats` and events and lines in `count`. With `fromFileStart` (the input starts at the file's
 * first line), it throws once {@link notEventsAfter} records are malformed and none was an event.
 */
export async function* readEventBatches(
  input: NodeJS.ReadableStream,
  stats: SourceTally,
  count: LineCount,
  options: { path: string; maxLineBytes?: number; fromFileStart: boolean },
): AsyncGenerator<CallEvent[]> {
  const max = options.maxLineBytes ?? defaultMaxLineBytes;
  for await (const lines of readLineBatches(input, { maxLineBytes: max })) {
    const batch: CallEvent[] = [];
    for (const { line, number, bytes } of lines) {
      count.lines = number;
      if (line === null) {
        stats.records += 1;
        stats.reject(number, tooLongReason(bytes, max));
        continue;
      }
      if (line.trim() === "") continue;
      stats.records += 1;
      const parsed = parseEventLine(line);
      if (parsed.ok) {
        count.events += 1;
        batch.push(parsed.event);
      } else {
        stats.reject(number, parsed.reason);
        if (options.fromFileStart && count.events === 0 && stats.malformed >= notEventsAfter) {
          throw notAnEventsFile(options.path, stats);
        }
      }
    }
    if (batch.length > 0) yield batch;
  }
}
