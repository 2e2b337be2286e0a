/**
 * @module
 * What the parallel events reader (`events-parallel.ts`) and its worker threads
 * (`events-worker.ts`) send each other: plain, structured-cloneable data.
 */
import type { AggregateOptions, AggregatorState } from "../aggregate.ts";
import type { ByteRange } from "./file-ranges.ts";
import type { MalformedRecord } from "./types.ts";

/** One worker's part of the file and how to read and aggregate it. */
export interface EventsWorkerInput {
  readonly path: string;
  readonly range: ByteRange;
  /** The range starts at the file's first line (only then can it tell "not an events file"). */
  readonly fromFileStart: boolean;
  readonly maxLineBytes?: number;
  readonly malformedSamples: number;
  /** One aggregation per entry (the window, and the baseline of a comparison). */
  readonly options: readonly AggregateOptions[];
}

/** What a worker counted in its range; line numbers are counted from the range's start. */
export interface EventsWorkerOutput {
  readonly lines: number;
  readonly records: number;
  readonly events: number;
  readonly malformed: number;
  readonly malformedSamples: readonly MalformedRecord[];
  readonly states: readonly AggregatorState[];
}
