/**
 * @module
 * Source (3): a Workers Analytics Engine SQL API export of the points the companion Worker
 * writes, as JSON (`{ meta, data: [...rows], rows }`, `FORMAT JSON`, the API's default),
 * JSON lines (`FORMAT JSONEachRow`, streamed) or CSV with a header row (streamed).
 *
 * Column mapping (the Worker writes one data point per call with these fields):
 *
 * | column            | CallEvent field | notes                                           |
 * |-------------------|-----------------|-------------------------------------------------|
 * | `timestamp`       | time            | `YYYY-MM-DD hh:mm:ss` (UTC), ISO or epoch s/ms  |
 * | `blob1`           | gateway         |                                                 |
 * | `blob2`           | route           |                                                 |
 * | `blob3`           | provider        | empty → null                                    |
 * | `blob4`           | model           | empty → null                                    |
 * | `blob5`           | errorCode       | empty → null (and the call may be ok)           |
 * | `blob6` (optional)| cacheStatus     | `HIT` / `MISS`, anything else → null            |
 * | `double1`         | step            | −1 (any negative) → null: no step served        |
 * | `double2`         | status          | HTTP status, 0 for network errors and timeouts  |
 * | `double3`         | latencyMs       |                                                 |
 * | `double4`         | tokensIn        | negative → null (unknown)                       |
 * | `double5`         | tokensOut       | negative → null (unknown)                       |
 * | `double6`         | cost            | USD; negative → null (unpriced)                 |
 * | `_sample_interval`| —               | the row stands for this many calls (default 1)  |
 *
 * `ok` is derived: status 200–299 and no error code. The same columns may also be selected under
 * their event names (`SELECT blob1 AS gateway, …`). Rows of the wrong shape are counted as
 * malformed with their line (CSV, JSON lines) or row number (JSON), never fatal.
 */
import { text as readAll } from "node:stream/consumers";
import type { CallEvent } from "../../client/event.ts";
import { AnalyticsError } from "../errors.ts";
import { parseEventValue } from "../event-schema.ts";
import { isRecordComplete, parseCsvRecord } from "./csv.ts";
import { type LineInputOptions, openInput, readLines } from "./read-lines.ts";
import { type EventSource, SourceTally } from "./types.ts";

export interface AnalyticsEngineOptions extends LineInputOptions {
  /** Malformed rows kept as samples (default 5). */
  readonly malformedSamples?: number;
}

/** Column names (raw and aliased) for each event field. */
const columns = {
  time: ["timestamp", "time"],
  gateway: ["blob1", "gateway"],
  route: ["blob2", "route"],
  provider: ["blob3", "provider"],
  model: ["blob4", "model"],
  errorCode: ["blob5", "errorCode", "error_code"],
  cacheStatus: ["blob6", "cacheStatus", "cache_status"],
  step: ["double1", "step"],
  status: ["double2", "status"],
  latencyMs: ["double3", "latencyMs", "latency_ms"],
  tokensIn: ["double4", "tokensIn", "tokens_in"],
  tokensOut: ["double5", "tokensOut", "tokens_out"],
  cost: ["double6", "cost"],
  sampleInterval: ["_sample_interval", "sample_interval"],
} as const;

type Row = Record<string, unknown>;

/** An Analytics Engine export file (or `-` for stdin) as an event source. */
export function analyticsEngineSource(
  path: string,
  options: AnalyticsEngineOptions = {},
): EventSource {
  const stats = new SourceTally(options.malformedSamples);
  function* fromRow(row: Row, number: number): Generator<CallEvent> {
    stats.records += 1;
    const mapped = rowToEvent(row, number);
    if (!mapped.ok) {
      stats.reject(number, mapped.reason);
      return;
    }
    for (let copy = 0; copy < mapped.weight; copy += 1) yield mapped.event;
  }
  return {
    kind: "analytics-engine",
    name: path === "-" ? "stdin" : path,
    stats,
    async *events(): AsyncGenerator<CallEvent> {
      const lines = readLines(await openInput(path, options));
      const first = await nextNonBlank(lines);
      if (!first) return;
      const head = first.line.trimStart();
      if (head.startsWith("{") && isEachRow(head)) {
        yield* fromRow(JSON.parse(head) as Row, first.number);
        for await (const { line, number } of lines) {
          if (line.trim() === "") continue;
          const row = parseJsonRow(line);
          if (row) yield* fromRow(row, number);
          else {
            stats.records += 1;
            stats.reject(number, "not a JSON object");
          }
        }
      } else if (head.startsWith("{") || head.startsWith("[")) {
        const rest = await readAll(linesToStream(lines));
        const rows = exportRows(`${first.line}\n${rest}`, path);
        for (const [index, row] of rows.entries()) yield* fromRow(row, index + 1);
      } else {
        const header = parseCsvRecord(first.line).map((name) => name.trim());
        if (!header.some((name) => name === "timestamp" || name === "time" || name === "blob1")) {
          throw invalidExport(path, "its first line is not a CSV header naming timestamp, blob1…");
        }
        let pending = "";
        let startLine = 0;
        for await (const { line, number } of lines) {
          if (pending === "" && line.trim() === "") continue;
          if (pending === "") startLine = number;
          pending = pending === "" ? line : `${pending}\n${line}`;
          if (!isRecordComplete(pending)) continue;
          const fields = parseCsvRecord(pending);
          pending = "";
          yield* fromRow(Object.fromEntries(header.map((name, i) => [name, fields[i]])), startLine);
        }
      }
    },
  };
}

/** Maps one export row to an event and the number of calls it stands for. */
export function rowToEvent(
  row: Row,
  number: number,
): { ok: true; event: CallEvent; weight: number } | { ok: false; reason: string } {
  const pick = (field: keyof typeof columns): unknown => {
    for (const name of columns[field]) if (row[name] !== undefined) return row[name];
    return undefined;
  };
  const time = parseTimestamp(pick("time"));
  if (time === null) return { ok: false, reason: "timestamp: missing or not a time" };
  const status = toNumber(pick("status"));
  const errorCode = toText(pick("errorCode"));
  const cache = toText(pick("cacheStatus"));
  const weight = toNumber(pick("sampleInterval")) ?? 1;
  const parsed = parseEventValue({
    time,
    id: `ae-${time}-${number}`,
    gateway: toText(pick("gateway")),
    route: toText(pick("route")),
    mode: "fetch",
    step: nonNegative(pick("step")),
    provider: toText(pick("provider")),
    model: toText(pick("model")),
    status,
    ok: status !== null && status >= 200 && status < 300 && errorCode === null,
    cacheStatus: cache === "HIT" || cache === "MISS" ? cache : null,
    latencyMs: toNumber(pick("latencyMs")),
    tokensIn: nonNegative(pick("tokensIn")),
    tokensOut: nonNegative(pick("tokensOut")),
    cost: nonNegative(pick("cost")),
    errorCode,
  });
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  if (!Number.isInteger(weight) || weight < 1) {
    return { ok: false, reason: "_sample_interval: must be a whole number ≥ 1" };
  }
  return { ok: true, event: parsed.event, weight };
}

function exportRows(text: string, path: string): Row[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw invalidExport(path, `it is not valid JSON (${(error as Error).message})`, error);
  }
  const data = Array.isArray(document) ? document : (document as { data?: unknown })?.data;
  if (!Array.isArray(data)) throw invalidExport(path, "it has no `data` array of rows");
  return data.map((row) => (typeof row === "object" && row !== null ? (row as Row) : {}));
}

function isEachRow(line: string): boolean {
  const row = parseJsonRow(line);
  return row !== null && !("data" in row) && !("meta" in row);
}

function parseJsonRow(line: string): Row | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Row)
      : null;
  } catch {
    return null;
  }
}

async function nextNonBlank(
  lines: AsyncGenerator<{ line: string; number: number }>,
): Promise<{ line: string; number: number } | null> {
  for (;;) {
    const next = await lines.next();
    if (next.done) return null;
    if (next.value.line.trim() !== "") return next.value;
  }
}

async function* linesToStream(lines: AsyncGenerator<{ line: string }>): AsyncGenerator<string> {
  for await (const { line } of lines) yield `${line}\n`;
}

function parseTimestamp(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) {
    return new Date(value < 1e12 ? value * 1000 : value).toISOString();
  }
  if (typeof value !== "string" || value.trim() === "") return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return parseTimestamp(Number(text));
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)
    ? `${text.replace(" ", "T")}Z`
    : text;
  const time = Date.parse(iso);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function toNumber(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string" && value.trim() !== "") {
    const number = Number(value);
    return Number.isFinite(number) ? number : null;
  }
  return null;
}

function nonNegative(value: unknown): number | null {
  const number = toNumber(value);
  return number === null || number < 0 ? null : number;
}

function toText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = String(value);
  return text === "" ? null : text;
}

function invalidExport(path: string, why: string, cause?: unknown): AnalyticsError {
  return new AnalyticsError({
    code: "analytics_source_invalid",
    message:
      `${path} is not an Analytics Engine export: ${why}. Export with the SQL API using ` +
      "FORMAT JSON (the default), FORMAT JSONEachRow, or CSV with a header row.",
    cause,
  });
}
