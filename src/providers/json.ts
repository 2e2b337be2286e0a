/**
 * @module
 * Reading provider bodies, which arrive as `unknown`: small field readers that never throw (a body
 * of the wrong shape gives `undefined`, not a crash), successful responses (strict: throws
 * `ProviderResponseError`), error bodies (lenient: never throws) and stream event JSON (an `error`
 * delta instead of a throw).
 */

import { StepwiseError } from "../errors/index.ts";
import type { ProviderErrorInfo } from "./types.ts";

/** Options for {@link ProviderResponseError}. */
export interface ProviderResponseErrorOptions {
  /** The provider slug whose response could not be read. */
  readonly provider: string;
  /** What was wrong with the body. */
  readonly message: string;
  readonly cause?: unknown;
}

/**
 * A successful (2xx) response whose body is empty, not JSON, or not in the provider's format.
 * Code `invalid_provider_response`. Usually the upstream URL points at the wrong server, or a
 * proxy answered instead of the provider.
 */
export class ProviderResponseError extends StepwiseError {
  static override readonly kind: string = "stepwise.ProviderResponseError";
  declare readonly provider: string;

  constructor({ provider, message, cause }: ProviderResponseErrorOptions) {
    super({ code: "invalid_provider_response", message, cause });
    this.name = "ProviderResponseError";
    this.provider = provider;
  }
}

/** A parsed JSON object. */
export type JsonRecord = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The field as an object, or `undefined`. */
export function readRecord(value: unknown, key: string): JsonRecord | undefined {
  const field = isRecord(value) ? value[key] : undefined;
  return isRecord(field) ? field : undefined;
}

/** The field as a string, or `undefined`. */
export function readString(value: unknown, key: string): string | undefined {
  const field = isRecord(value) ? value[key] : undefined;
  return typeof field === "string" ? field : undefined;
}

/** The field as a finite number, or `undefined`. */
export function readNumber(value: unknown, key: string): number | undefined {
  const field = isRecord(value) ? value[key] : undefined;
  return typeof field === "number" && Number.isFinite(field) ? field : undefined;
}

/** The field as an array, or `undefined`. */
export function readArray(value: unknown, key: string): readonly unknown[] | undefined {
  const field = isRecord(value) ? value[key] : undefined;
  return Array.isArray(field) ? field : undefined;
}

/**
 * The value at a path of fields and array indexes, or `undefined` where the path leaves the JSON.
 * @example at(json, "choices", 0, "message", "content")
 */
export function at(value: unknown, ...path: readonly (string | number)[]): unknown {
  for (const key of path) {
    value =
      typeof value === "object" && value !== null
        ? (value as Record<string, unknown>)[key]
        : undefined;
  }
  return value;
}

/** The value as a string, or `undefined`. */
export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The value as a finite number, or `undefined`. */
export function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A copy of `body` without its `undefined` fields (request bodies leave unset options out). */
export function withoutUndefined(body: Record<string, unknown>): Record<string, unknown> {
  // A loop: Object.entries/filter/fromEntries costs ten times as much on every request body.
  const defined: Record<string, unknown> = {};
  for (const key in body) {
    const value = body[key];
    if (value !== undefined) defined[key] = value;
  }
  return defined;
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

/** Who is speaking, for messages. */
export interface ProviderIdentity {
  readonly slug: string;
  readonly displayName: string;
}

/** The provider's error `type` and `message`, or `undefined` when the body is not its shape. */
export type ErrorShapeReader = (
  json: unknown,
) => { readonly type: string; readonly message: string } | undefined;

function bodyText(body: unknown): string | undefined {
  if (typeof body === "string") return body;
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body))
    return new TextDecoder().decode(body);
  return undefined;
}

/**
 * Reads a successful response body (parsed JSON, JSON text or bytes) into an object.
 * @throws ProviderResponseError when the body is empty, not JSON or not an object.
 */
export function readResponseJson(provider: ProviderIdentity, body: unknown): JsonRecord {
  const text = bodyText(body);
  let json: unknown = body;
  if (text !== undefined) {
    if (text.trim() === "") throw invalidResponse(provider, "an empty body");
    const parsed = parseJson(text);
    if (!parsed.ok) throw invalidResponse(provider, `a body that is not JSON: ${excerpt(text)}`);
    json = parsed.value;
  }
  if (json === undefined || json === null) throw invalidResponse(provider, "an empty body");
  if (!isRecord(json)) {
    throw invalidResponse(provider, `JSON that is not an object: ${describeJson(json)}`);
  }
  return json;
}

/** A `ProviderResponseError` saying the body is not in the provider's format. */
export function invalidResponse(provider: ProviderIdentity, what: string): ProviderResponseError {
  const name = provider.displayName;
  return new ProviderResponseError({
    provider: provider.slug,
    message:
      `${name} answered with ${what}. Expected a ${name} chat response; check that the ` +
      `upstream URL for "${provider.slug}" points at ${name}'s API (or a server compatible with it).`,
  });
}

/**
 * Reads a Cloudflare envelope error, `{ success: false, errors: [{ code, message }] }` (Workers AI)
 * or `{ error: [{ code, message }] }` (AI Gateway itself). The type is the numeric code as text.
 */
export const readCloudflareError: ErrorShapeReader = (json) => {
  const first = (readArray(json, "errors") ?? readArray(json, "error"))?.[0];
  const message = readString(first, "message");
  if (message === undefined || !isRecord(first)) return undefined;
  const code = first.code;
  return {
    type: typeof code === "number" || typeof code === "string" ? String(code) : "unknown",
    message,
  };
};

/**
 * Normalises an error body of any shape. Never throws: bodies that are empty, not JSON or in an
 * unknown shape give type `unknown` and a message with the HTTP status.
 */
export function readErrorBody(
  provider: ProviderIdentity,
  status: number,
  body: unknown,
  readShape: ErrorShapeReader,
): ProviderErrorInfo {
  const unknown = (detail: string): ProviderErrorInfo => ({
    status,
    type: "unknown",
    message: `${provider.displayName} returned HTTP ${status}${detail}`,
  });
  try {
    const text = bodyText(body);
    const parsed = text === undefined ? { ok: true as const, value: body } : parseJson(text);
    const value = parsed.ok ? parsed.value : undefined;
    if (text?.trim() === "" || (parsed.ok && (value === undefined || value === null))) {
      return unknown(" with an empty body.");
    }
    if (!parsed.ok) return unknown(`: ${excerpt(text ?? "")}`);
    const shape = readShape(value) ?? readCloudflareError(value);
    return shape === undefined ? unknown(`: ${describeJson(value)}`) : { status, ...shape };
  } catch {
    return unknown(".");
  }
}

/** A message field that may be a string or a structured detail (Mistral validation errors). */
export function messageText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  return value === undefined || value === null ? undefined : JSON.stringify(value);
}
