/**
 * @module
 * Reads back a row of the call point `analytics-schema.ts` defines (from an export file or the
 * SQL API, columns by name): `stepwise report --source analytics-engine` turns each into a call
 * event. The app is `blob7` only (the Worker does not repeat it among the metadata blobs); it is
 * read back as the `app` metadata entry too, as the gateway's logs carry it, so `metadata.app`
 * groups alike whichever source the report reads.
 */
import {
  appMetadataKey,
  type CallPoint,
  type CallPointMode,
  callPointColumns,
  metadataColumns,
  sampleIntervalColumn,
  timestampColumn,
} from "./analytics-schema.ts";

/** A row read back: from an export file or the SQL API, columns by name. */
export type CallPointRow = Readonly<Record<string, unknown>>;

/** A decoded row, or why it could not be. */
export type DecodedCallRow =
  | { readonly ok: true; readonly point: CallPoint; readonly time: number; readonly weight: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads one row written by `encodeCallPoint`. Missing optional columns read as unknown;
 * a row without `timestamp`, `blob1` or `double2` is refused with the reason.
 */
export function decodeCallRow(row: CallPointRow): DecodedCallRow {
  const time = parseTimestamp(row[timestampColumn]);
  if (time === null) return { ok: false, reason: "no readable timestamp" };
  const gateway = text(row[callPointColumns.gateway]);
  if (!gateway) return { ok: false, reason: `no gateway (${callPointColumns.gateway})` };
  const status = number(row[callPointColumns.status]);
  if (status === null || status < 0) {
    return { ok: false, reason: `no HTTP status (${callPointColumns.status})` };
  }
  const step = number(row[callPointColumns.step]);
  const errorCode = text(row[callPointColumns.errorCode]) || null;
  const okColumn = number(row[callPointColumns.ok]);
  const cache = text(row[callPointColumns.cacheStatus]);
  const mode = text(row[callPointColumns.mode]);
  const weight = number(row[sampleIntervalColumn]) ?? 1;
  const attempt = number(row[callPointColumns.attempt]);
  const app = text(row[callPointColumns.app]);
  const metadata: Record<string, string> = {};
  if (app !== "") metadata[appMetadataKey] = app;
  for (const column of metadataColumns) {
    const entry = text(row[column]);
    const equals = entry.indexOf("=");
    // A writer before the app had only its own blob repeated it here: blob7 wins.
    if (equals > 0 && entry.slice(0, equals) !== appMetadataKey) {
      metadata[entry.slice(0, equals)] = entry.slice(equals + 1);
    }
  }
  return {
    ok: true,
    time,
    weight: Math.max(weight, 1),
    point: {
      gateway,
      route: text(row[callPointColumns.route]),
      provider: text(row[callPointColumns.provider]) || null,
      model: text(row[callPointColumns.model]) || null,
      errorCode,
      cacheStatus: cache === "HIT" || cache === "MISS" ? cache : null,
      app,
      mode: isMode(mode) ? mode : "universal",
      keySource: text(row[callPointColumns.keySource]) || null,
      eventId: text(row[callPointColumns.eventId]) || null,
      metadata,
      step: step === null || step < 0 ? null : step,
      status,
      latencyMs: Math.max(0, number(row[callPointColumns.latencyMs]) ?? 0),
      ok: okColumn === null ? status >= 200 && status < 300 && errorCode === null : okColumn === 1,
      tokensIn: nonNegative(number(row[callPointColumns.tokensIn])),
      tokensOut: nonNegative(number(row[callPointColumns.tokensOut])),
      cost: nonNegative(number(row[callPointColumns.cost])),
      attempt: attempt === null || attempt < 1 ? 1 : attempt,
    },
  };
}

function isMode(value: string): value is CallPointMode {
  return value === "universal" || value === "dynamic" || value === "provider" || value === "compat";
}

function text(value: unknown): string {
  return typeof value === "string"
    ? value
    : value === undefined || value === null
      ? ""
      : String(value);
}

function number(value: unknown): number | null {
  const parsed =
    typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() !== ""
        ? Number(value)
        : Number.NaN;
  return Number.isFinite(parsed) ? parsed : null;
}

function nonNegative(value: number | null): number | null {
  return value === null || value < 0 ? null : value;
}

/** `YYYY-MM-DD hh:mm:ss` (UTC, the SQL API's format), ISO-8601, or epoch seconds/milliseconds. */
function parseTimestamp(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) {
    return value < 1e12 ? value * 1000 : value;
  }
  if (typeof value !== "string" || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return parseTimestamp(Number(trimmed));
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(trimmed)
    ? `${trimmed.replace(" ", "T")}Z`
    : trimmed;
  const time = Date.parse(iso);
  return Number.isFinite(time) ? time : null;
}
