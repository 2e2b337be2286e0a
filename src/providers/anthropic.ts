/**
 * @module
 * Anthropic's Messages API (`v1/messages`): `x-api-key` auth, a required `max_tokens`, system
 * prompts as a top-level `system` string, and `{ type: "error", error: { type, message } }` error
 * bodies. A trailing assistant message is a prefill the model continues. Also the format's
 * vocabulary (stop reasons, usage, error statuses), which the stream reader (`streams.ts`) shares.
 */

import {
  asNumber,
  asString,
  at,
  type ErrorShapeReader,
  invalidResponse,
  isRecord,
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

/** The `max_tokens` sent when a request sets none; Anthropic requires the field. */
export const anthropicDefaultMaxTokens = 1024;

/** The API version header value Stepwise speaks. */
export const anthropicVersion = "2023-06-01";

const provider = { slug: "anthropic", displayName: "Anthropic" } as const;

const stopReasons: Readonly<Record<string, FinishReason>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "content_filter",
  tool_use: "tool_calls",
};

/** Maps an Anthropic `stop_reason` to the normalised reason. */
export function anthropicFinishReason(reason: string | undefined): FinishReason {
  return ownEntry(stopReasons, reason) ?? "unknown";
}

/**
 * Reads Anthropic usage. `input_tokens` excludes prompt-cache reads and writes, so they are added
 * to give every token of the prompt.
 */
export function readAnthropicUsage(usage: unknown): Partial<TokenUsage> {
  const input = asNumber(at(usage, "input_tokens"));
  const cached =
    (asNumber(at(usage, "cache_creation_input_tokens")) ?? 0) +
    (asNumber(at(usage, "cache_read_input_tokens")) ?? 0);
  const output = asNumber(at(usage, "output_tokens"));
  return {
    ...(input === undefined ? {} : { tokensIn: input + cached }),
    ...(output === undefined ? {} : { tokensOut: output }),
  };
}

/** Reads `{ type: "error", error: { type, message } }`. */
export const readAnthropicError: ErrorShapeReader = (json) => {
  const message = asString(at(json, "error", "message"));
  return message === undefined
    ? undefined
    : { type: asString(at(json, "error", "type")) ?? "unknown", message };
};

/** HTTP statuses Anthropic documents for each error type, for errors sent inside a stream. */
const errorStatuses: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** The HTTP status Anthropic uses for an error type; 500 for types it does not document. */
export function anthropicErrorStatus(type: string): number {
  return ownEntry(errorStatuses, type) ?? 500;
}

function requestBody(model: string, request: ChatRequest): Record<string, unknown> {
  const system = request.messages
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n\n");
  return withoutUndefined({
    model,
    max_tokens: request.maxTokens ?? anthropicDefaultMaxTokens,
    system: system || undefined,
    messages: request.messages
      .filter((message) => message.role !== "system")
      .map(({ role, content }) => ({ role, content })),
    temperature: request.temperature,
    top_p: request.topP,
    stop_sequences: request.stop?.length ? [...request.stop] : undefined,
    stream: request.stream || undefined,
  });
}

function parseResponse(body: unknown, requestedModel?: string): ChatResult {
  const json = readResponseJson(provider, body);
  if (json.type === "error") {
    const message = readAnthropicError(json)?.message ?? "no message";
    throw invalidResponse(provider, `an error instead of an answer: ${message}`);
  }
  const content = json.content;
  if (!Array.isArray(content)) throw invalidResponse(provider, "a body without a content array");
  const usage = readAnthropicUsage(json.usage);
  return {
    text: content
      .filter((block) => isRecord(block) && block.type === "text")
      .map((block) => asString(block.text) ?? "")
      .join(""),
    provider: provider.slug,
    model: asString(json.model) ?? requestedModel ?? "",
    usage: { tokensIn: usage.tokensIn ?? 0, tokensOut: usage.tokensOut ?? 0 },
    finishReason: anthropicFinishReason(asString(json.stop_reason)),
  };
}

/** Anthropic: `https://api.anthropic.com/v1/messages` with `x-api-key` and `anthropic-version`. */
export const anthropicProvider: ProviderAdapter = {
  ...provider,
  format: "anthropic",
  endpoint: () => "v1/messages",
  defaultHeaders: { "anthropic-version": anthropicVersion },
  authHeaders: (key) => ({ "x-api-key": key, "anthropic-version": anthropicVersion }),
  acceptsPrefill: true,
  requestBody,
  parseResponse,
  parseError: (status, body) => readErrorBody(provider, status, body, readAnthropicError),
};

/** This format's adapter (see `catalog.ts`). */
export function adapterFor(): ProviderAdapter {
  return anthropicProvider;
}
