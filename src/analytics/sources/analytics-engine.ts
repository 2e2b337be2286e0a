/**
 * @module
 * Source (3): a Workers Analytics Engine SQL API export of the points the companion Worker
 * writes, as JSON (`{ meta, data: [...rows], rows }`, `FORMAT JSON`, the API's default),
 * JSON lines (`FORMAT JSONEachRow`, streamed) or CSV with a header row (streamed).
 *
 * Rows are read with `decodeCallRow` (`src/worker/analytics-row.ts`) of `src/worker/analytics-schema.ts`, the one schema the
 * Worker's writer also uses: which column holds what (`blob2` route, `double1` step, `double4`
 * ok, …) is written there once. Columns may also be selected under their field names
 * (`SELECT blob1 AS gateway, double3 AS latency_ms, …`, camelCase or snake_case). Each row
 * stands for `_sample_interval` calls, and the rows of one call (a point per attempt, same app
 * and event id) are its one event (`point-calls.ts`). Rows of the wrong shape are counted as malformed with
 * their line (CSV, JSON lines) or row number (JSON), never fatal.
 */
import { text as readAll } from "node:stream/consumers";
import type { CallEvent } from "../../client/event.ts";
import { appOwnEventId } from "../../wire/event-id.ts";
import { type CallPointRow, decodeCallRow } from "../../worker/analytics-row.ts";
import {
  type CallPoint,
  callPointColumns,
  sampleIntervalColumn,
  timestampColumn,
} from "../../worker/analytics-schema.ts";
import { AnalyticsError } from "../errors.ts";
import { parseEventValue } from "../event-schema.ts";
import { isRecordComplete, parseCsvRecord } from "./csv.ts";
import { PointCalls, type PointRow } from "./point-calls.ts";
import { type LineInputOptions, openInput, readLines } from "./read-lines.ts";
import { type EventSource, SourceTally } from "./types.ts";

export interface AnalyticsEngineOptions extends LineInputOptions {
  /** Malformed rows kept as samples (default 5). */
  readonly malformedSamples?: number;
}

/** Alias → column: each field name (camelCase and snake_case), `time`, `sample_interval`. */
const aliases: ReadonlyMap<string, string> = new Map([
  ["time", timestampColumn],
  ["sample_interval", sampleIntervalColumn],
  ...Object.entries(callPointColumns).flatMap(([field, column]) => [
    [field, column] as [string, string],
    [field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), column] as [string, string],
  ]),
]);

type Row = Record<string, unknown>;

/** An Analytics Engine export file (or `-` for stdin) as an event source. */
export function analyticsEngineSource(
  path: string,
  options: AnalyticsEngineOptions = {},
): EventSource {
  const stats = new SourceTally(options.malformedSamples);
  // The points of one call (a request per attempt) become its one event.
  const calls = new PointCalls();
  function* weighted(rows: readonly PointRow[]): Generator<CallEvent> {
    for (const { event, weight } of rows) {
      for (let copy = 0; copy < weight; copy += 1) yield event;
    }
  }
  function* fromRow(row: Row, number: number): Generator<CallEvent> {
    stats.records += 1;
    const mapped = rowToEvent(row, number);
    if (!mapped.ok) {
      stats.reject(number, mapped.reason);
      return;
    }
    yield* weighted(calls.add(mapped, mapped.eventId));
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
      yield* weighted(calls.flush());
    },
  };
}

/** Maps one export row to an event and the number of calls it stands for. */
export function rowToEvent(
  row: Row,
  number: number,
):
  | {
      ok: true;
      event: CallEvent;
      weight: number;
      app: string;
      attempt: number;
      eventId: string | null;
    }
  | { ok: false; reason: string } {
  const columns = canonical(row);
  const decoded = decodeCallRow(columns);
  if (!decoded.ok) return { ok: false, reason: decoded.reason };
  const { point, time, weight } = decoded;
  if (!Number.isInteger(weight) || weight < 1) {
    return { ok: false, reason: "_sample_interval: must be a whole number ≥ 1" };
  }
  const parsed = parseEventValue({
    time: new Date(time).toISOString(),
    id: point.eventId ? appOwnEventId(point.app, point.eventId) : `ae-${time}-${number}`,
    gateway: point.gateway,
    route: point.route,
    mode: eventMode(point, columns),
    ...endpointOfPoint(point, columns),
    step: point.step,
    provider: point.provider,
    model: point.model,
    status: point.status,
    ok: point.ok,
    cacheStatus: point.cacheStatus,
    latencyMs: point.latencyMs,
    tokensIn: point.tokensIn,
    tokensOut: point.tokensOut,
    cost: point.cost,
    errorCode: point.errorCode,
  });
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const attempt = point.attempt ?? 1;
  if (attempt > 1) parsed.event.attempts = attempt;
  return {
    ok: true,
    event: parsed.event,
    weight,
    app: point.app,
    attempt,
    eventId: point.eventId,
  };
}

/** The row with aliased columns under their column names (a column present wins). */
function canonical(row: Row): CallPointRow {
  const result: Record<string, unknown> = { ...row };
  for (const [name, value] of Object.entries(row)) {
    const column = aliases.get(name);
    if (column !== undefined && result[column] === undefined) result[column] = value;
  }
  return result;
}

/**
 * The client's event modes: provider-native and compat calls are `fetch` calls, and so is a row
 * whose export left the mode out (nothing says the chain was sent).
 */
function eventMode(point: CallPoint, columns: CallPointRow): CallEvent["mode"] {
  if (!columns[callPointColumns.mode]) return "fetch";
  return point.mode === "universal" || point.mode === "dynamic" ? point.mode : "fetch";
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

function invalidExport(path: string, why: string, cause?: unknown): AnalyticsError {
  return new AnalyticsError({
    code: "analytics_source_invalid",
    message:
      `${path} is not an Analytics Engine export: ${why}. Export with the SQL API using ` +
      "FORMAT JSON (the default), FORMAT JSONEachRow, or CSV with a header row.",
    cause,
  });
}

/** The endpoint of a provider-native or compat point (a `fetch` event), for `--by endpoint`. */
function endpointOfPoint(point: CallPoint, columns: CallPointRow): Pick<CallEvent, "endpoint"> {
  // Universal and dynamic points say it with their mode already.
  if (!columns[callPointColumns.mode]) return {};
  return point.mode === "provider" || point.mode === "compat" ? { endpoint: point.mode } : {};
}
