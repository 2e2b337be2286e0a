/**
 * @module
 * Google AI Studio (Gemini API): `v1beta/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse` when streaming, with `x-goog-api-key` auth. Assistant turns are
 * role `model`; system messages become `systemInstruction`. Also the format's vocabulary (finish
 * reasons, candidate text, usage metadata, errors), which the stream reader (`streams.ts`) shares.
 */

import {
  asNumber,
  asString,
  at,
  type ErrorShapeReader,
  invalidResponse,
  isRecord,
  messageText,
  ownEntry,
  readErrorBody,
  readResponseJson,
  withoutUndefined,
} from "./json.ts";
import type {
  ChatRequest,
  ChatResult,
  FinishReason,
  ProviderAdapter,
  TokenUsage,
} from "./types.ts";

const provider = { slug: "google-ai-studio", displayName: "Google AI Studio" } as const;

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
  const parts = at(candidate, "content", "parts");
  return (Array.isArray(parts) ? parts : [])
    .filter((part) => isRecord(part) && part.thought !== true)
    .map((part) => asString(at(part, "text")) ?? "")
    .join("");
}

/** Reads `usageMetadata`; thinking tokens are billed as output, so they count as tokens out. */
export function readGoogleUsage(metadata: unknown): TokenUsage | undefined {
  if (!isRecord(metadata)) return undefined;
  return {
    tokensIn: asNumber(metadata.promptTokenCount) ?? 0,
    tokensOut:
      (asNumber(metadata.candidatesTokenCount) ?? 0) + (asNumber(metadata.thoughtsTokenCount) ?? 0),
  };
}

/** The prompt's block reason when Gemini refused the prompt and sent no candidates. */
export function readBlockReason(json: unknown): string | undefined {
  return asString(at(json, "promptFeedback", "blockReason"));
}

/**
 * Reads `{ error: { code, message, status } }` (also wrapped in an array, as the non-SSE stream
 * endpoint sends it). The type is `status`, e.g. `RESOURCE_EXHAUSTED`.
 */
export const readGoogleError: ErrorShapeReader = (json) => {
  const error = at(Array.isArray(json) ? json[0] : json, "error");
  const message = isRecord(error) ? messageText(error.message) : undefined;
  if (!isRecord(error) || message === undefined) return undefined;
  const code = asNumber(error.code);
  return {
    type: asString(error.status) ?? (code === undefined ? "unknown" : String(code)),
    message,
  };
};

/** The endpoint path; a `models/` prefix on the model id is accepted and dropped. */
function endpoint(model: string, request: ChatRequest): string {
  const id = model.startsWith("models/") ? model.slice(7) : model;
  return `v1beta/models/${id}:${request.stream ? "streamGenerateContent?alt=sse" : "generateContent"}`;
}

function requestBody(_model: string, request: ChatRequest): Record<string, unknown> {
  const system = request.messages.filter((message) => message.role === "system");
  const generationConfig = withoutUndefined({
    maxOutputTokens: request.maxTokens,
    temperature: request.temperature,
    topP: request.topP,
    stopSequences: request.stop?.length ? [...request.stop] : undefined,
  });
  return withoutUndefined({
    contents: request.messages
      .filter((message) => message.role !== "system")
      .map((message) => ({
        role: message.role === "assistant" ? "model" : "user",
        parts: [{ text: message.content }],
      })),
    systemInstruction:
      system.length > 0
        ? { parts: [{ text: system.map((message) => message.content).join("\n\n") }] }
        : undefined,
    generationConfig: Object.keys(generationConfig).length > 0 ? generationConfig : undefined,
  });
}

function parseResponse(body: unknown, requestedModel?: string): ChatResult {
  const json = readResponseJson(provider, body);
  const error = readGoogleError(json);
  if (error !== undefined) {
    throw invalidResponse(provider, `an error instead of an answer: ${error.message}`);
  }
  const candidate = at(json, "candidates", 0);
  if (candidate === undefined && readBlockReason(json) === undefined) {
    throw invalidResponse(provider, "a body without candidates");
  }
  return {
    text: readCandidateText(candidate),
    provider: provider.slug,
    model: asString(json.modelVersion) ?? requestedModel ?? "",
    usage: readGoogleUsage(json.usageMetadata) ?? { tokensIn: 0, tokensOut: 0 },
    finishReason:
      candidate === undefined
        ? "content_filter"
        : googleFinishReason(asString(at(candidate, "finishReason"))),
  };
}

/** Google AI Studio (Gemini API) at `https://generativelanguage.googleapis.com/`. */
export const googleAiStudioProvider: ProviderAdapter = {
  ...provider,
  format: "google",
  endpoint,
  authHeaders: (key) => ({ "x-goog-api-key": key }),
  requestBody,
  parseResponse,
  parseError: (status, body) => readErrorBody(provider, status, body, readGoogleError),
};

/** This format's adapter (see `catalog.ts`). */
export function adapterFor(): ProviderAdapter {
  return googleAiStudioProvider;
}
