/**
 * @module
 * Anthropic's wire vocabulary, shared by the response and stream readers: stop reasons, usage,
 * error bodies and the HTTP status of each error type.
 */

import { ownEntry, readNumber, readRecord, readString } from "./json.ts";
import type { ErrorShapeReader } from "./provider-body.ts";
import type { FinishReason, TokenUsage } from "./types.ts";

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
  const cacheWrites = readNumber(usage, "cache_creation_input_tokens") ?? 0;
  const cacheReads = readNumber(usage, "cache_read_input_tokens") ?? 0;
  const output = readNumber(usage, "output_tokens");
  return {
    ...(input === undefined ? {} : { tokensIn: input + cacheWrites + cacheReads }),
    ...(output === undefined ? {} : { tokensOut: output }),
  };
}

/** Reads `{ type: "error", error: { type, message } }`. */
export const readAnthropicError: ErrorShapeReader = (json) => {
  const error = readRecord(json, "error");
  const message = readString(error, "message");
  if (message === undefined) return undefined;
  return { type: readString(error, "type") ?? "unknown", message };
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
