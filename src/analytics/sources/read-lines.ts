/**
 * @module
 * Opens a file (or stdin for `-`) and yields its lines one at a time, so a file of any size is
 * read in constant memory.
 */
import { open } from "node:fs/promises";
import { createInterface } from "node:readline";
import { AnalyticsError } from "../errors.ts";

/** Input for line sources: a path, or `-` for `stdin`. */
export interface LineInputOptions {
  /** The stream `-` reads (default: `process.stdin`, resolved at call time). */
  readonly stdin?: NodeJS.ReadableStream;
}

/** Opens `path` (or stdin for `-`) as a readable stream. */
export async function openInput(
  path: string,
  options: LineInputOptions = {},
): Promise<NodeJS.ReadableStream> {
  if (path === "-") return options.stdin ?? process.stdin;
  try {
    const handle = await open(path, "r");
    return handle.createReadStream({ encoding: "utf8", highWaterMark: 256 * 1024 });
  } catch (error) {
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

/** Yields each line of `input` (without its line ending) with its 1-based number. */
export async function* readLines(
  input: NodeJS.ReadableStream,
): AsyncGenerator<{ line: string; number: number }> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  try {
    for await (const line of lines) {
      number += 1;
      yield { line, number };
    }
  } finally {
    lines.close();
  }
}
