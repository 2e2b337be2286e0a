/**
 * @module
 * Opens a file (or stdin for `-`) and yields its lines one at a time, in constant memory: a line
 * longer than `maxLineBytes` (1 MiB by default) is never held whole; it is skipped and reported
 * (`line: null`) so the caller can count it. Lines split on `\n`; a trailing `\r` is dropped.
 */
import { open, stat } from "node:fs/promises";
import { AnalyticsError } from "../errors.ts";

/** Lines longer than this many bytes are skipped (an event line is well under 1 KiB). */
export const defaultMaxLineBytes = 1_048_576;

/** Input for line sources: a path, or `-` for `stdin`. */
export interface LineInputOptions {
  /** The stream `-` reads (default: `process.stdin`, resolved at call time). */
  readonly stdin?: NodeJS.ReadableStream;
  /** Longest line read, in bytes (default {@link defaultMaxLineBytes}); longer ones are skipped. */
  readonly maxLineBytes?: number;
}

/** One line: its text, or null when it was longer than the limit (and skipped). */
export interface InputLine {
  readonly line: string | null;
  readonly number: number;
  /** Bytes of the line (without its line ending). */
  readonly bytes: number;
}

/** Opens `path` (or stdin for `-`) as a readable stream of bytes. */
export async function openInput(
  path: string,
  options: LineInputOptions = {},
): Promise<NodeJS.ReadableStream> {
  if (path === "-") return options.stdin ?? process.stdin;
  try {
    if ((await stat(path)).isDirectory()) {
      throw new AnalyticsError({
        code: "analytics_source_unreadable",
        message: `${path} is a directory, not an events file. Give the JSON-lines file the client writes (e.g. events.jsonl), or - to read stdin.`,
      });
    }
    const handle = await open(path, "r");
    return handle.createReadStream({ highWaterMark: 1024 * 1024 });
  } catch (error) {
    if (AnalyticsError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "";
    throw new AnalyticsError({
      code: "analytics_source_unreadable",
      message:
        code === "ENOENT"
          ? `Events file ${path} does not exist. Check the path, or pass - to read from stdin.`
          : `Cannot read ${path} (${code || (error as Error).message}). Check the path and its permissions.`,
      cause: error,
    });
  }
}

/**
 * Yields each line of `input` as text with its 1-based number. A line over the limit comes back
 * as a marker that no JSON or CSV reader accepts, so it is counted as malformed, never held.
 */
export async function* readLines(
  input: NodeJS.ReadableStream,
  options: Pick<LineInputOptions, "maxLineBytes"> = {},
): AsyncGenerator<{ line: string; number: number }> {
  for await (const { line, number, bytes } of readBoundedLines(input, options)) {
    yield { line: line ?? `\u0000${tooLongReason(bytes, options.maxLineBytes)}`, number };
  }
}

/** Yields each line of `input` (without its line ending) with its 1-based number. */
export async function* readBoundedLines(
  input: NodeJS.ReadableStream,
  options: Pick<LineInputOptions, "maxLineBytes"> = {},
): AsyncGenerator<InputLine> {
  for await (const batch of readLineBatches(input, options)) yield* batch;
}

/**
 * The lines of `input` a chunk at a time (one array per chunk read, about 1 MiB), so a caller
 * pays one asynchronous step per chunk rather than per line.
 */
export async function* readLineBatches(
  input: NodeJS.ReadableStream,
  options: Pick<LineInputOptions, "maxLineBytes"> = {},
): AsyncGenerator<InputLine[]> {
  const max = options.maxLineBytes ?? defaultMaxLineBytes;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  let number = 0;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    const batch: InputLine[] = [];
    let start = 0;
    for (;;) {
      const end = buffer.indexOf(10, start);
      if (end === -1) {
        const rest = buffer.length - start;
        if (rest > 0) {
          pendingBytes += rest;
          if (!skipping && pendingBytes > max) {
            skipping = true;
            pending = [];
          }
          if (!skipping) pending.push(buffer.subarray(start));
        }
        break;
      }
      number += 1;
      const bytes = pendingBytes + (end - start);
      batch.push(
        skipping || bytes > max
          ? { line: null, number, bytes }
          : { line: decode(pending, buffer, start, end), number, bytes },
      );
      pending = [];
      pendingBytes = 0;
      skipping = false;
      start = end + 1;
    }
    if (batch.length > 0) yield batch;
  }
  if (pendingBytes > 0) {
    number += 1;
    yield [
      skipping
        ? { line: null, number, bytes: pendingBytes }
        : { line: decode(pending, Buffer.alloc(0), 0, 0), number, bytes: pendingBytes },
    ];
  }
}

function decode(pending: readonly Buffer[], buffer: Buffer, start: number, end: number): string {
  let last = end;
  if (pending.length === 0) {
    if (last > start && buffer[last - 1] === 13) last -= 1;
    return buffer.toString("utf8", start, last);
  }
  const whole = Buffer.concat([...pending, buffer.subarray(start, end)]);
  const length =
    whole.length > 0 && whole[whole.length - 1] === 13 ? whole.length - 1 : whole.length;
  return whole.toString("utf8", 0, length);
}

/** The reason a skipped line is counted as malformed. */
export function tooLongReason(bytes: number, max = defaultMaxLineBytes): string {
  return `line is ${bytes.toLocaleString("en-US")} bytes, longer than the ${max.toLocaleString("en-US")}-byte limit; skipped`;
}
