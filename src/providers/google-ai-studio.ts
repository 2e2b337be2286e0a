/**
 * @module
 * Google AI Studio (Gemini API): `v1beta/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse` when streaming, with `x-goog-api-key` auth. Assistant turns are
 * role `model`; system messages become `systemInstruction`.
 */

import {
  googleFinishReason,
  readBlockReason,
  readCandidateText,
  readGoogleError,
  readGoogleUsage,
} from "./google-ai-studio-format.ts";
import { createGoogleStreamParser } from "./google-ai-studio-stream.ts";
import { readArray, readString } from "./json.ts";
import {
  invalidResponse,
  type ProviderIdentity,
  readErrorBody,
  readResponseJson,
} from "./provider-body.ts";
import type { ChatRequest, ChatResult, ProviderAdapter } from "./types.ts";

const provider: ProviderIdentity = { slug: "google-ai-studio", displayName: "Google AI Studio" };

/** The endpoint path; a `models/` prefix on the model id is accepted and dropped. */
function endpoint(model: string, request: ChatRequest): string {
  const id = model.startsWith("models/") ? model.slice("models/".length) : model;
  return request.stream === true
    ? `v1beta/models/${id}:streamGenerateContent?alt=sse`
    : `v1beta/models/${id}:generateContent`;
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
  if (request.stop !== undefined && request.stop.length > 0) {
    generationConfig.stopSequences = [...request.stop];
  }
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
  const blockReason = readBlockReason(json);
  if (candidate === undefined && blockReason === undefined) {
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

/** Google AI Studio (Gemini API) at `https://generativelanguage.googleapis.com/`. */
export const googleAiStudioProvider: ProviderAdapter = {
  slug: provider.slug,
  displayName: provider.displayName,
  format: "google",
  upstreamBaseUrl: "https://generativelanguage.googleapis.com/",
  endpoint,
  authHeaders: (key) => ({ "x-goog-api-key": key }),
  requestBody,
  parseResponse,
  parseError: (status, body) => readErrorBody(provider, status, body, readGoogleError),
  createStreamParser: () => createGoogleStreamParser(provider),
};
