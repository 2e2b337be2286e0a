/**
 * @module
 * Google AI Studio (Gemini API): `v1beta/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse` when streaming, with `x-goog-api-key` auth. Assistant turns are
 * role `model`; system messages become `systemInstruction`. Streams have no `[DONE]`: each event
 * is a partial GenerateContentResponse, and the chunk whose candidate carries a `finishReason` (or
 * a prompt block) ends the stream, with `done` after its `finish`.
 */

import {
  type ErrorShapeReader,
  invalidResponse,
  isRecord,
  messageText,
  ownEntry,
  type ProviderIdentity,
  readArray,
  readErrorBody,
  readNumber,
  readRecord,
  readResponseJson,
  readStreamJson,
  readString,
} from "./json.ts";
import type {
  ChatRequest,
  ChatResult,
  FinishReason,
  ProviderAdapter,
  StreamDelta,
  StreamParser,
  TokenUsage,
} from "./types.ts";

const provider: ProviderIdentity = { slug: "google-ai-studio", displayName: "Google AI Studio" };

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
function readCandidateText(candidate: unknown): string {
  const parts = readArray(readRecord(candidate, "content"), "parts") ?? [];
  return parts
    .filter((part) => isRecord(part) && part.thought !== true)
    .map((part) => readString(part, "text") ?? "")
    .join("");
}

/** Reads `usageMetadata`; thinking tokens are billed as output, so they count as tokens out. */
function readGoogleUsage(metadata: unknown): TokenUsage | undefined {
  if (!isRecord(metadata)) return undefined;
  return {
    tokensIn: readNumber(metadata, "promptTokenCount") ?? 0,
    tokensOut:
      (readNumber(metadata, "candidatesTokenCount") ?? 0) +
      (readNumber(metadata, "thoughtsTokenCount") ?? 0),
  };
}

/** The prompt's block reason when Gemini refused the prompt and sent no candidates. */
function readBlockReason(json: unknown): string | undefined {
  return readString(readRecord(json, "promptFeedback"), "blockReason");
}

/**
 * Reads `{ error: { code, message, status } }` (also wrapped in an array, as the non-SSE stream
 * endpoint sends it). The type is `status`, e.g. `RESOURCE_EXHAUSTED`.
 */
const readGoogleError: ErrorShapeReader = (json) => {
  const error = readRecord(Array.isArray(json) ? json[0] : json, "error");
  const message = messageText(error?.message);
  if (error === undefined || message === undefined) return undefined;
  const code = readNumber(error, "code");
  return {
    type: readString(error, "status") ?? (code === undefined ? "unknown" : String(code)),
    message,
  };
};

/** The endpoint path; a `models/` prefix on the model id is accepted and dropped. */
function endpoint(model: string, request: ChatRequest): string {
  const id = model.startsWith("models/") ? model.slice("models/".length) : model;
  return `v1beta/models/${id}:${request.stream ? "streamGenerateContent?alt=sse" : "generateContent"}`;
}

function requestBody(_model: string, request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    contents: request.messages
      .filter((message) => message.role !== "system")
      .map((message) => ({
        role: message.role === "assistant" ? "model" : "user",
        parts: [{ text: message.content }],
      })),
  };
  const system = request.messages.filter((message) => message.role === "system");
  if (system.length > 0) {
    body.systemInstruction = {
      parts: [{ text: system.map((message) => message.content).join("\n\n") }],
    };
  }
  const generationConfig: Record<string, unknown> = {};
  if (request.maxTokens !== undefined) generationConfig.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) generationConfig.temperature = request.temperature;
  if (request.topP !== undefined) generationConfig.topP = request.topP;
  if (request.stop?.length) generationConfig.stopSequences = [...request.stop];
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return body;
}

function parseResponse(body: unknown, requestedModel?: string): ChatResult {
  const json = readResponseJson(provider, body);
  const error = readGoogleError(json);
  if (error !== undefined) {
    throw invalidResponse(provider, `an error instead of an answer: ${error.message}`);
  }
  const candidate = readArray(json, "candidates")?.[0];
  if (candidate === undefined && readBlockReason(json) === undefined) {
    throw invalidResponse(provider, "a body without candidates");
  }
  return {
    text: readCandidateText(candidate),
    provider: provider.slug,
    model: readString(json, "modelVersion") ?? requestedModel ?? "",
    usage: readGoogleUsage(json.usageMetadata) ?? { tokensIn: 0, tokensOut: 0 },
    finishReason:
      candidate === undefined
        ? "content_filter"
        : googleFinishReason(readString(candidate, "finishReason")),
  };
}

/** A stream parser for one Gemini streamed response. Events after the end are ignored. */
function createStreamParser(): StreamParser {
  let ended = false;
  return (event) => {
    if (ended) return [];
    const parsed = readStreamJson(provider, event);
    if (!parsed.ok) return [parsed.delta];
    const chunk = parsed.value;
    const error = readGoogleError(chunk);
    if (error !== undefined) {
      const code = readNumber(readRecord(chunk, "error"), "code");
      const status = code !== undefined && code >= 400 && code <= 599 ? code : 500;
      return [{ type: "error", error: { status, ...error } }];
    }
    const deltas: StreamDelta[] = [];
    const candidate = readArray(chunk, "candidates")?.[0];
    const text = readCandidateText(candidate);
    if (text !== "") deltas.push({ type: "text", text });
    const usage = readGoogleUsage(chunk.usageMetadata);
    if (usage !== undefined) deltas.push({ type: "usage", usage });
    const reason = readString(candidate, "finishReason");
    const blocked = candidate === undefined && readBlockReason(chunk) !== undefined;
    if (reason !== undefined || blocked) {
      ended = true;
      const finish = blocked ? "content_filter" : googleFinishReason(reason);
      deltas.push({ type: "finish", reason: finish }, { type: "done" });
    }
    return deltas;
  };
}

/** Google AI Studio (Gemini API) at `https://generativelanguage.googleapis.com/`. */
export const googleAiStudioProvider: ProviderAdapter = {
  ...provider,
  format: "google",
  upstreamBaseUrl: "https://generativelanguage.googleapis.com/",
  endpoint,
  authHeaders: (key) => ({ "x-goog-api-key": key }),
  requestBody,
  parseResponse,
  parseError: (status, body) => readErrorBody(provider, status, body, readGoogleError),
  createStreamParser,
};
