/**
 * @module
 * Anthropic's Messages API (`v1/messages`): `x-api-key` auth, a required `max_tokens`, system
 * prompts as a top-level `system` string, and `{ type: "error", error: { type, message } }`
 * error bodies.
 */

import {
  anthropicFinishReason,
  readAnthropicError,
  readAnthropicUsage,
} from "./anthropic-format.ts";
import { createAnthropicStreamParser } from "./anthropic-stream.ts";
import { isRecord, readArray, readString } from "./json.ts";
import { invalidResponse, readErrorBody, readResponseJson } from "./provider-body.ts";
import type { ChatRequest, ChatResult, ProviderAdapter } from "./types.ts";

/** The `max_tokens` sent when a request sets none; Anthropic requires the field. */
export const anthropicDefaultMaxTokens = 1024;

/** The API version header value Stepwise speaks. */
export const anthropicVersion = "2023-06-01";

const provider = { slug: "anthropic", displayName: "Anthropic" } as const;

function requestBody(model: string, request: ChatRequest): Record<string, unknown> {
  const system = request.messages
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n\n");
  const body: Record<string, unknown> = {
    model,
    max_tokens: request.maxTokens ?? anthropicDefaultMaxTokens,
  };
  if (system !== "") body.system = system;
  body.messages = request.messages
    .filter((message) => message.role !== "system")
    .map(({ role, content }) => ({ role, content }));
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0)
    body.stop_sequences = [...request.stop];
  if (request.stream === true) body.stream = true;
  return body;
}

function parseResponse(body: unknown, requestedModel?: string): ChatResult {
  const json = readResponseJson(provider, body);
  if (json.type === "error") {
    const message = readAnthropicError(json)?.message ?? "no message";
    throw invalidResponse(provider, `an error instead of an answer: ${message}`);
  }
  const content = readArray(json, "content");
  if (content === undefined) throw invalidResponse(provider, "a body without a content array");
  const text = content
    .filter((block) => isRecord(block) && block.type === "text")
    .map((block) => readString(block, "text") ?? "")
    .join("");
  const usage = readAnthropicUsage(json.usage);
  return {
    text,
    provider: provider.slug,
    model: readString(json, "model") ?? requestedModel ?? "",
    usage: { tokensIn: usage.tokensIn ?? 0, tokensOut: usage.tokensOut ?? 0 },
    finishReason: anthropicFinishReason(readString(json, "stop_reason")),
  };
}

/** Anthropic: `https://api.anthropic.com/v1/messages` with `x-api-key` and `anthropic-version`. */
export const anthropicProvider: ProviderAdapter = {
  slug: provider.slug,
  displayName: provider.displayName,
  format: "anthropic",
  upstreamBaseUrl: "https://api.anthropic.com/",
  endpoint: () => "v1/messages",
  defaultHeaders: { "anthropic-version": anthropicVersion },
  authHeaders: (key) => ({ "x-api-key": key, "anthropic-version": anthropicVersion }),
  requestBody,
  parseResponse,
  parseError: (status, body) => readErrorBody(provider, status, body, readAnthropicError),
  createStreamParser: () => createAnthropicStreamParser(provider),
};
