/**
 * @module
 * Anthropic's Messages API (`v1/messages`): `x-api-key` auth, a required `max_tokens`, system
 * prompts as a top-level `system` string, `{ type: "error", error: { type, message } }` error
 * bodies, and streams of `message_start` (input tokens), `content_block_start` /
 * `content_block_delta` (text), `message_delta` (stop reason, cumulative output tokens),
 * `message_stop` (done), `ping` and `error` events. Unknown event types are ignored, as
 * Anthropic asks clients to do. A trailing assistant message is a prefill the model continues.
 */

import {
  type ErrorShapeReader,
  invalidResponse,
  isRecord,
  ownEntry,
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
  const input = readNumber(usage, "input_tokens");
  const cached =
    (readNumber(usage, "cache_creation_input_tokens") ?? 0) +
    (readNumber(usage, "cache_read_input_tokens") ?? 0);
  const output = readNumber(usage, "output_tokens");
  return {
    ...(input === undefined ? {} : { tokensIn: input + cached }),
    ...(output === undefined ? {} : { tokensOut: output }),
  };
}

/** Reads `{ type: "error", error: { type, message } }`. */
export const readAnthropicError: ErrorShapeReader = (json) => {
  const error = readRecord(json, "error");
  const message = readString(error, "message");
  return message === undefined
    ? undefined
    : { type: readString(error, "type") ?? "unknown", message };
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
  if (request.stop?.length) body.stop_sequences = [...request.stop];
  if (request.stream) body.stream = true;
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
  const usage = readAnthropicUsage(json.usage);
  return {
    text: content
      .filter((block) => isRecord(block) && block.type === "text")
      .map((block) => readString(block, "text") ?? "")
      .join(""),
    provider: provider.slug,
    model: readString(json, "model") ?? requestedModel ?? "",
    usage: { tokensIn: usage.tokensIn ?? 0, tokensOut: usage.tokensOut ?? 0 },
    finishReason: anthropicFinishReason(readString(json, "stop_reason")),
  };
}

function usageDelta(usage: unknown, keep: "tokensIn" | "both"): StreamDelta[] {
  const { tokensIn, tokensOut } = readAnthropicUsage(usage);
  const picked: Partial<TokenUsage> = {
    ...(tokensIn === undefined ? {} : { tokensIn }),
    ...(tokensOut === undefined || keep === "tokensIn" ? {} : { tokensOut }),
  };
  return Object.keys(picked).length === 0 ? [] : [{ type: "usage", usage: picked }];
}

function textDelta(text: string | undefined): StreamDelta[] {
  return text ? [{ type: "text", text }] : [];
}

/** A stream parser for one Anthropic streamed response. */
function createStreamParser(): StreamParser {
  return (event) => {
    const parsed = readStreamJson(provider, event);
    if (!parsed.ok) return [parsed.delta];
    const data = parsed.value;
    switch (readString(data, "type") ?? event.event) {
      case "message_start":
        // Output tokens here are a running start value; message_delta carries the total.
        return usageDelta(readRecord(readRecord(data, "message"), "usage"), "tokensIn");
      case "content_block_start": {
        const block = readRecord(data, "content_block");
        return block?.type === "text" ? textDelta(readString(block, "text")) : [];
      }
      case "content_block_delta": {
        const delta = readRecord(data, "delta");
        return delta?.type === "text_delta" ? textDelta(readString(delta, "text")) : [];
      }
      case "message_delta": {
        const reason = readString(readRecord(data, "delta"), "stop_reason");
        const finish: StreamDelta[] =
          reason === undefined ? [] : [{ type: "finish", reason: anthropicFinishReason(reason) }];
        return [...finish, ...usageDelta(data.usage, "both")];
      }
      case "message_stop":
        return [{ type: "done" }];
      case "error": {
        const error = readAnthropicError(data) ?? { type: "unknown", message: event.data };
        return [{ type: "error", error: { status: anthropicErrorStatus(error.type), ...error } }];
      }
      default:
        return [];
    }
  };
}

/** Anthropic: `https://api.anthropic.com/v1/messages` with `x-api-key` and `anthropic-version`. */
export const anthropicProvider: ProviderAdapter = {
  ...provider,
  format: "anthropic",
  upstreamBaseUrl: "https://api.anthropic.com/",
  endpoint: () => "v1/messages",
  defaultHeaders: { "anthropic-version": anthropicVersion },
  authHeaders: (key) => ({ "x-api-key": key, "anthropic-version": anthropicVersion }),
  acceptsPrefill: true,
  requestBody,
  parseResponse,
  parseError: (status, body) => readErrorBody(provider, status, body, readAnthropicError),
  createStreamParser,
};
