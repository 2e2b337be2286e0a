/**
 * @module
 * Google AI Studio (Gemini API) wire vocabulary, shared by the response and stream readers:
 * finish reasons, candidate text, usage metadata and error bodies.
 */

import { isRecord, ownEntry, readArray, readNumber, readRecord, readString } from "./json.ts";
import { type ErrorShapeReader, messageText } from "./provider-body.ts";
import type { FinishReason, StreamDelta, TokenUsage } from "./types.ts";

const finishReasons: Readonly<Record<string, FinishReason>> = {
  STOP: "stop",
  MAX_TOKENS: "length",
  SAFETY: "content_filter",
  RECITATION: "content_filter",
  BLOCKLIST: "content_filter",
  PROHIBITED_CONTENT: "content_filter",
  SPII: "content_filter",
  IMAGE_SAFETY: "content_filter",
  MALFORMED_FUNCTION_CALL: "error",
  UNEXPECTED_TOOL_CALL: "error",
};

/** Maps a Gemini `finishReason` to the normalised reason. */
export function googleFinishReason(reason: string | undefined): FinishReason {
  return ownEntry(finishReasons, reason) ?? "unknown";
}

/** The first candidate's answer text, without thought-summary parts. */
export function readCandidateText(candidate: unknown): string {
  const parts = readArray(readRecord(candidate, "content"), "parts") ?? [];
  return parts
    .filter((part) => isRecord(part) && part.thought !== true)
    .map((part) => readString(part, "text") ?? "")
    .join("");
}

/** Reads `usageMetadata`; thinking tokens are billed as output, so they count as tokens out. */
export function readGoogleUsage(metadata: unknown): TokenUsage | undefined {
  if (!isRecord(metadata)) return undefined;
  return {
    tokensIn: readNumber(metadata, "promptTokenCount") ?? 0,
    tokensOut:
      (readNumber(metadata, "candidatesTokenCount") ?? 0) +
      (readNumber(metadata, "thoughtsTokenCount") ?? 0),
  };
}

/** The prompt's block reason when Gemini refused the prompt and sent no candidates. */
export function readBlockReason(json: unknown): string | undefined {
  return readString(readRecord(json, "promptFeedback"), "blockReason");
}

/**
 * Reads `{ error: { code, message, status } }` (also wrapped in an array, as the non-SSE stream
 * endpoint sends it). The type is `status`, e.g. `RESOURCE_EXHAUSTED`.
 */
export const readGoogleError: ErrorShapeReader = (json) => {
  const body = Array.isArray(json) ? json[0] : json;
  const error = readRecord(body, "error");
  const message = messageText(error?.message);
  if (error === undefined || message === undefined) return undefined;
  const code = readNumber(error, "code");
  return {
    type: readString(error, "status") ?? (code === undefined ? "unknown" : String(code)),
    message,
  };
};

/** An `error` delta for a `{ error: {...} }` chunk inside a stream, or `undefined`. */
export function readGoogleStreamError(chunk: unknown): StreamDelta | undefined {
  const error = readGoogleError(chunk);
  if (error === undefined) return undefined;
  const code = readNumber(readRecord(chunk, "error"), "code");
  const status = code !== undefined && code >= 400 && code <= 599 ? code : 500;
  return { type: "error", error: { status, ...error } };
}
