/**
 * @module
 * OpenAI Chat Completions vocabulary, shared by the response and stream readers: finish reasons,
 * usage and the error shapes of OpenAI-compatible providers.
 */

import { isRecord, ownEntry, readNumber, readRecord } from "./json.ts";
import { type ErrorShapeReader, messageText } from "./provider-body.ts";
import type { FinishReason, TokenUsage } from "./types.ts";

const finishReasons: Readonly<Record<string, FinishReason>> = {
  stop: "stop",
  end_turn: "stop",
  length: "length",
  model_length: "length",
  content_filter: "content_filter",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  error: "error",
};

/** Maps an OpenAI-style `finish_reason` to the normalised reason. */
export function openAiFinishReason(reason: string | undefined): FinishReason {
  return ownEntry(finishReasons, reason) ?? "unknown";
}

/**
 * Reads `{ prompt_tokens, completion_tokens }`; `undefined` when absent or null. Reasoning tokens
 * count as output: when a provider leaves them out of `completion_tokens` (xAI), which shows as
 * prompt + completion + reasoning = total, they are added back.
 */
export function readOpenAiUsage(usage: unknown): TokenUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const tokensIn = readNumber(usage, "prompt_tokens") ?? 0;
  const completion = readNumber(usage, "completion_tokens") ?? 0;
  const reasoning = readNumber(readRecord(usage, "completion_tokens_details"), "reasoning_tokens");
  const total = readNumber(usage, "total_tokens");
  const reasoningExcluded =
    reasoning !== undefined && reasoning > 0 && tokensIn + completion + reasoning === total;
  return { tokensIn, tokensOut: reasoningExcluded ? completion + reasoning : completion };
}

/**
 * Reads the error shapes OpenAI-compatible APIs use: `{ error: { message, type, code } }`
 * (OpenAI, Groq, DeepSeek, OpenRouter with a numeric code), `{ code, error: "text" }` (xAI) and
 * `{ object: "error", message, type, code }` (Mistral). The type is the specific `code` when there
 * is one (`context_length_exceeded`), else `type`.
 */
export const readOpenAiError: ErrorShapeReader = (json) => {
  if (!isRecord(json)) return undefined;
  const nested = json.error;
  if (isRecord(nested)) {
    const message = messageText(nested.message);
    if (message === undefined) return undefined;
    return { type: errorType(nested.code, nested.type), message };
  }
  if (typeof nested === "string") return { type: errorType(json.code, json.type), message: nested };
  const message =
    typeof json.message === "string" || json.object === "error"
      ? messageText(json.message)
      : undefined;
  return message === undefined ? undefined : { type: errorType(json.code, json.type), message };
};

/**
 * A specific `code` (`context_length_exceeded`) beats `type`; numeric codes (Mistral's `"1300"`)
 * and category codes ending in `_error` (DeepSeek's `invalid_request_error`) say less than `type`.
 */
function errorType(code: unknown, type: unknown): string {
  if (typeof code === "string" && code !== "" && !/^\d+$|_error$/.test(code)) return code;
  if (typeof type === "string" && type !== "") return type;
  if (typeof code === "number" || (typeof code === "string" && code !== "")) return String(code);
  return "unknown";
}
