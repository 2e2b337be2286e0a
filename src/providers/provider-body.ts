/**
 * @module
 * Shared reading of provider bodies: successful responses (strict, throws
 * `ProviderResponseError`), error bodies (lenient, never throws) and stream event JSON (returns
 * an `error` delta instead of throwing).
 */

import { ProviderResponseError } from "./errors.ts";
import {
  describeJson,
  excerpt,
  isRecord,
  type JsonRecord,
  parseJson,
  readArray,
  readString,
} from "./json.ts";
import type { ProviderErrorInfo, SseEvent, StreamDelta } from "./types.ts";

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
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
    return new TextDecoder().decode(body);
  }
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
  return new ProviderResponseError({
    provider: provider.slug,
    message:
      `${provider.displayName} answered with ${what}. Expected a ${provider.displayName} chat ` +
      `response; check that the upstream URL for "${provider.slug}" points at ` +
      `${provider.displayName}'s API (or a server compatible with it).`,
  });
}

/**
 * Reads a Cloudflare envelope error, `{ success: false, errors: [{ code, message }] }` (Workers AI)
 * or `{ error: [{ code, message }] }` (AI Gateway itself). The type is the numeric code as text.
 */
export const readCloudflareError: ErrorShapeReader = (json) => {
  const list = readArray(json, "errors") ?? readArray(json, "error");
  const first = list?.[0];
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
  try {
    const text = bodyText(body);
    if (text !== undefined && text.trim() === "") return emptyError(provider, status);
    const parsed = text === undefined ? { ok: true as const, value: body } : parseJson(text);
    if (!parsed.ok) {
      const message = `${provider.displayName} returned HTTP ${status}: ${excerpt(text ?? "")}`;
      return { status, type: "unknown", message };
    }
    if (parsed.value === undefined || parsed.value === null) return emptyError(provider, status);
    const shape = readShape(parsed.value) ?? readCloudflareError(parsed.value);
    if (shape !== undefined) return { status, ...shape };
    const message = `${provider.displayName} returned HTTP ${status}: ${describeJson(parsed.value)}`;
    return { status, type: "unknown", message };
  } catch {
    return { status, type: "unknown", message: `${provider.displayName} returned HTTP ${status}.` };
  }
}

function emptyError(provider: ProviderIdentity, status: number): ProviderErrorInfo {
  return {
    status,
    type: "unknown",
    message: `${provider.displayName} returned HTTP ${status} with an empty body.`,
  };
}

/** A message field that may be a string or a structured detail (Mistral validation errors). */
export function messageText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return undefined;
  return JSON.stringify(value);
}

/** The status used for stream events that are not valid JSON: a bad upstream answer. */
export const invalidStreamEventStatus = 502;

/** The result of reading one stream event's JSON data. */
export type StreamJsonResult =
  | { readonly ok: true; readonly value: JsonRecord }
  | { readonly ok: false; readonly delta: StreamDelta };

/** Parses an event's data as a JSON object, or gives an `error` delta saying why it is not one. */
export function readStreamJson(provider: ProviderIdentity, event: SseEvent): StreamJsonResult {
  const parsed = parseJson(event.data);
  if (parsed.ok && isRecord(parsed.value)) return { ok: true, value: parsed.value };
  const error: ProviderErrorInfo = {
    status: invalidStreamEventStatus,
    type: "invalid_stream_event",
    message:
      `${provider.displayName} sent a stream event that is not a JSON object: ` +
      `${excerpt(event.data) || "(empty)"}`,
  };
  return { ok: false, delta: { type: "error", error } };
}
