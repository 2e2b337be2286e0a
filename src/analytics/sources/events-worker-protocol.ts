/**
 * @module
 * What the parallel events reader (`events-parallel.ts`) and its worker threads
 * (`events-worker.ts`) send each other: plain, structured-cloneable data. A worker asks for a
 * part of the file, reads it, reports its tally, and asks again; once no part is left it sends
 * what it aggregated over all its parts. So a thread that the machine runs less often reads
 * fewer parts, and the threads finish together.
 */
import type { AggregateOptions, AggregatorState } from "../aggregate.ts";
import type { ByteRange } from "./file-ranges.ts";
import type { MalformedRecord } from "./types.ts";

/** How every worker reads and aggregates (its `workerData`). */
export interface EventsWorkerInput {
  readonly path: string;
  readonly maxLineBytes?: number;
  readonly malformedSamples: number;
  /** One aggregation per entry (the window, and the baseline of a comparison). */
  readonly options: readonly AggregateOptions[];
}

/** The parent's answer to a worker's request: a part to read, or none left. */
export type PartAssignment =
  | {
      readonly index: number;
      readonly range: ByteRange;
      /** The part starts at the file's first line (only then can it tell "not an events file"). */
      readonly fromFileStart: boolean;
    }
  | { readonly index: null };

/** What a worker counted in one part; line numbers are counted from the part's start. */
export interface PartTally {
  readonly index: number;
  /** The first part held no event before too many malformed lines: read in one thread. */
  readonly declined: boolean;
  readonly lines: number;
  readonly records: number;
  readonly events: number;
  readonly malformed: number;
  readonly malformedSamples: readonly MalformedRecord[];
}

/** What a worker sends: a request for a part, a part's tally, or its aggregates at the end. */
export type WorkerMessage =
  | { readonly kind: "next" }
  | { readonly kind: "part"; readonly tally: PartTally }
  | { readonly kind: "done"; readonly states: readonly AggregatorState[] };
