/**
 * @module
 * Small readers for untyped JSON. Provider bodies arrive as `unknown`; these helpers read one
 * field at a time without casts, so a body of the wrong shape gives `undefined`, not a crash.
 */

/** A parsed JSON object. */
export type JsonRecord = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The field as an object, or `undefined`. */
export function readRecord(value: unknown, key: string): JsonRecord | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return isRecord(field) ? field : undefined;
}

/** The field as a string, or `undefined`. */
export function readString(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === "string" ? field : undefined;
}

/** The field as a finite number, or `undefined`. */
export function readNumber(value: unknown, key: string): number | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return typeof field === "number" && Number.isFinite(field) ? field : undefined;
}

/** The field as an array, or `undefined`. */
export function readArray(value: unknown, key: string): readonly unknown[] | undefined {
  if (!isRecord(value)) return undefined;
  const field = value[key];
  return Array.isArray(field) ? field : undefined;
}

/** The result of parsing text that may not be JSON. */
export type JsonParseResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false };

/** Parses JSON text without throwing. */
export function parseJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Shortens text for an error message, so a large HTML error page does not flood logs. */
export function excerpt(text: string, maxLength = 200): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= maxLength ? oneLine : `${oneLine.slice(0, maxLength)}…`;
}

/** A lookup-table entry, ignoring inherited keys such as `constructor` or `toString`. */
export function ownEntry<T>(
  table: Readonly<Record<string, T>>,
  key: string | undefined,
): T | undefined {
  return key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A short JSON rendering of any value for an error message; never throws. */
export function describeJson(value: unknown): string {
  try {
    return excerpt(JSON.stringify(value) ?? String(value));
  } catch {
    return excerpt(String(value));
  }
}
