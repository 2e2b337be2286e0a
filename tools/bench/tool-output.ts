/**
 * @module
 * Reads figures out of other tools' output, pure: wrangler's upload size line and jq's groups.
 */

/** Wrangler's `Total Upload: 512.34 KiB / gzip: 98.76 KiB` line, in bytes; undefined if absent. */
export function parseWranglerUpload(output: string): { raw: number; gzip: number } | undefined {
  const match = /Total Upload:\s*([\d.]+)\s*KiB\s*\/\s*gzip:\s*([\d.]+)\s*KiB/.exec(output);
  if (match === null) return undefined;
  return { raw: Math.round(Number(match[1]) * 1024), gzip: Math.round(Number(match[2]) * 1024) };
}

/**
 * Sum of `calls` over jq's groups: an array of groups (`group_by`) or an object keyed by group
 * (`reduce`).
 * @throws Error when the output is not JSON or a group has no numeric `calls`.
 */
export function jqCalls(output: string): number {
  const parsed = JSON.parse(output) as unknown;
  if (parsed === null || typeof parsed !== "object") {
    throw new Error("jq printed neither an array nor an object of groups");
  }
  const groups = Array.isArray(parsed) ? parsed : Object.values(parsed);
  let total = 0;
  for (const group of groups) {
    const calls = (group as { calls?: unknown } | null)?.calls;
    if (typeof calls !== "number") throw new Error("a jq group has no numeric calls");
    total += calls;
  }
  return total;
}

/** The events DuckDB's report script counted (its one JSON line: `{ "calls": n, … }`). */
export function duckdbCalls(stdout: string): number {
  const calls = (JSON.parse(stdout) as { calls?: unknown }).calls;
  if (typeof calls !== "number") throw new Error("DuckDB's output has no numeric calls");
  return calls;
}
