/**
 * @module
 * The DuckDB engine of `stepwise report` over an events file (`--engine duckdb`, and `auto` for
 * a large file when `@duckdb/node-api`, an optional peer dependency, is installed): DuckDB reads
 * and groups the JSON lines in native code on every core (`events-sql.ts`), and the report's own
 * aggregator counts the groups (`rows-state.ts`), so every definition (figures, failure reasons,
 * steering, cost of fallback, buckets) is the one the JS reader uses and the renderers see the
 * same report.
 *
 * Why this route, not the SQL of `--source analytics-engine`: that SQL speaks Analytics Engine's
 * columns and has no failure reasons, steering or explanation; grouping the file's lines by
 * everything a figure depends on and handing each group to the JS counting code reuses all of it
 * and keeps one definition of each figure.
 *
 * Results: counts, rates, tokens and cost are the JS reader's exactly (costs are exact sums);
 * latency quantiles always come from the sketch's buckets, so they are within ±1 % of the exact
 * nearest-rank value even for groups of 1,024 calls or fewer (where the JS reader is exact), and
 * `latencyExact` is false.
 *
 * Malformed lines: DuckDB cannot tell which line broke or why, as the report lists it. When a
 * line is not JSON, or not an event DuckDB can vouch for (a required field missing, a value out
 * of range, a time not in the client's `…T12:00:00.000Z` form, a name or step the schema
 * refuses), this engine hands the whole file to the JS reader, whose report counts and lists
 * them (`onFallback` says so). Fields no figure reads (`id`, `logId`, `attempts`, `streamed`,
 * `rejectedSteps`, `discardedChars`; `mode` and `endpoint` but with `--by endpoint`) are not
 * checked, and DuckDB reads a number where a name is
 * expected as its text, a time with unpadded fields (`2026-5-1T…`) and a line longer than the JS
 * reader's 1 MiB: such a line is counted, where the JS reader rejects it.
 *
 * Time buckets: each row is one signature in one bucket of the size the report will settle on
 * (an explicit `--bucket`, the window's when it is closed, else the span of the file's first and
 * last lines); if the counted events span a different size, the query runs once more with it.
 * Memory is DuckDB's hash table of signatures × buckets (a few thousand rows), not the events.
 */
import { open, stat } from "node:fs/promises";
import type { AggregateOptions } from "../aggregate.ts";
import { StepRateAggregator } from "../aggregate.ts";
import { allDimensions, orderDimensions } from "../dimensions.ts";
import { eventTime } from "../event-time.ts";
import type { EventSource } from "../sources/types.ts";
import { autoBucketSizes, chooseAutoBucket } from "../window.ts";
import { eventsSql } from "./events-sql.ts";
import { type EventsRow, RowsRefused, rowsToState } from "./rows-state.ts";

export interface DuckdbEngineOptions {
  /** Told why the file went to the JS reader instead. */
  readonly onFallback?: (reason: string) => void;
  /** DuckDB threads (default: every core). */
  readonly threads?: number;
}

/** DuckDB's memory limit: its hash table of groups is small; this keeps it flat whatever. */
const memoryLimit = "256MB";

/**
 * `source` (the JS reader of `path`) with DuckDB aggregating the file: the same report, the
 * same stats object, and the JS reader's path when DuckDB declines.
 */
export function withDuckdbEngine(
  path: string,
  source: EventSource,
  options: DuckdbEngineOptions = {},
): EventSource {
  const jsAggregateAll = source.aggregateAll;
  return {
    ...source,
    aggregateAll: async (list) => {
      try {
        const aggregators: StepRateAggregator[] = [];
        let records = 0;
        for (const aggregateOptions of list) {
          const result = await aggregateWithDuckdb(path, aggregateOptions, options);
          records = result.records;
          aggregators.push(result.aggregator);
        }
        source.stats.records = records;
        return aggregators;
      } catch (error) {
        if (!(error instanceof RowsRefused)) throw error;
        options.onFallback?.(error.message);
        return jsAggregateAll ? jsAggregateAll(list) : null;
      }
    },
  };
}

interface EngineResult {
  readonly aggregator: StepRateAggregator;
  readonly records: number;
}

async function aggregateWithDuckdb(
  path: string,
  options: AggregateOptions,
  engine: DuckdbEngineOptions,
): Promise<EngineResult> {
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const instance = await DuckDBInstance.create(":memory:", {
    memory_limit: memoryLimit,
    // The rows are grouped: their order does not matter, and keeping it costs memory.
    preserve_insertion_order: "false",
    ...(engine.threads === undefined ? {} : { threads: String(engine.threads) }),
  });
  const connection = await instance.connect();
  try {
    const run = async (bucketMs: number | null) => {
      const sql = eventsSql({
        path,
        dimensions: orderDimensions(options.dimensions ?? allDimensions),
        window: options.window ?? { since: null, until: null },
        gateways: options.gateways ?? [],
        routes: options.routes ?? [],
        bucketMs,
      });
      let rows: EventsRow[];
      try {
        rows = (await connection.runAndReadAll(sql)).getRowObjectsJS() as EventsRow[];
      } catch (error) {
        // Not JSON, a value of the wrong type, a file it cannot open: the JS reader says which.
        throw new RowsRefused(
          `DuckDB could not read it (${(error as Error).message.split("\n")[0]})`,
        );
      }
      const summary = rowsToState(rows, options, bucketMs);
      if (summary.unread > 0) {
        throw new RowsRefused(
          `${summary.unread} of ${summary.records} lines are not events DuckDB can vouch for`,
        );
      }
      return summary;
    };
    const keepSeries = options.series ?? true;
    const guess = keepSeries ? await bucketGuess(path, options) : null;
    let summary = await run(guess);
    const { first, last } = summary.state;
    if (guess !== null && options.bucketMs == null && first !== null && last !== null) {
      const settled = chooseAutoBucket(first, last, initialBucket(options));
      if (settled < guess) summary = await run(settled);
    }
    const aggregator = new StepRateAggregator(options);
    aggregator.merge(summary.state);
    return { aggregator, records: summary.records };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The aggregator's starting bucket: the closed window's automatic size, else the finest. */
function initialBucket(options: AggregateOptions): number {
  const since = options.window?.since ?? null;
  const until = options.window?.until ?? null;
  return since !== null && until !== null
    ? chooseAutoBucket(since, until - 1)
    : (autoBucketSizes[0] ?? 1000);
}

/** Bytes read at each end of the file to guess the span of its events. */
const endBytes = 64 * 1024;

/**
 * The bucket size the report is likely to settle on: the explicit one, the closed window's, or
 * the one the times at both ends of the file span (events are written in time order; when the
 * guess is too coarse, the caller runs the query again).
 */
async function bucketGuess(path: string, options: AggregateOptions): Promise<number> {
  if (options.bucketMs != null) return options.bucketMs;
  const initial = initialBucket(options);
  if (options.window?.since != null && options.window?.until != null) return initial;
  const size = (await stat(path)).size;
  const handle = await open(path, "r");
  try {
    const read = async (position: number) => {
      const buffer = Buffer.alloc(Math.min(endBytes, size));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      return buffer.subarray(0, bytesRead).toString("utf8");
    };
    const text = `${await read(0)}\n${await read(Math.max(0, size - endBytes))}`;
    let first: number | null = null;
    let last: number | null = null;
    for (const line of text.split("\n")) {
      const match = /"time":"([^"]+)"/.exec(line);
      const time = match?.[1] === undefined ? null : eventTime(match[1]);
      if (time === null) continue;
      if (first === null || time < first) first = time;
      if (last === null || time > last) last = time;
    }
    return first === null || last === null ? initial : chooseAutoBucket(first, last, initial);
  } finally {
    await handle.close();
  }
}
