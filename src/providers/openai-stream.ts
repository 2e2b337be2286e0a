/**
 * @module
 * Reads OpenAI Chat Completions streams: `data: {choices:[{delta:{content}, finish_reason}]}`
 * chunks, an optional usage chunk (`stream_options.include_usage`), then `data: [DONE]`.
 * Also reads Groq's `x_groq.usage`, and mid-stream `{error: {...}}` chunks (OpenRouter).
 */

import { readArray, readNumber, readRecord, readString } from "./json.ts";
import { openAiFinishReason, readOpenAiError, readOpenAiUsage } from "./openai-format.ts";
import { type ProviderIdentity, readStreamJson } from "./provider-body.ts";
import type { StreamDelta, StreamParser } from "./types.ts";

/** An `error` delta for a mid-stream `{ error: ... }` chunk, or `undefined`. */
function readStreamError(chunk: Record<string, unknown>): StreamDelta | undefined {
  if (chunk.error === undefined || chunk.error === null) return undefined;
  const error = readOpenAiError(chunk) ?? { type: "unknown", message: JSON.stringify(chunk.error) };
  const code = readNumber(readRecord(chunk, "error"), "code");
  const status = code !== undefined && code >= 400 && code <= 599 ? code : 500;
  return { type: "error", error: { status, ...error } };
}

/** A stream parser for one OpenAI-compatible streamed response. */
export function createOpenAiStreamParser(provider: ProviderIdentity): StreamParser {
  return (event) => {
    if (event.data.trim() === "[DONE]") return [{ type: "done" }];
    const parsed = readStreamJson(provider, event);
    if (!parsed.ok) return [parsed.delta];
    const chunk = parsed.value;
    const error = readStreamError(chunk);
    if (error !== undefined) return [error];

    const deltas: StreamDelta[] = [];
    const choice = readArray(chunk, "choices")?.[0];
    const text = readString(readRecord(choice, "delta"), "content");
    if (text !== undefined && text !== "") deltas.push({ type: "text", text });
    const finish = readString(choice, "finish_reason");
    if (finish !== undefined) deltas.push({ type: "finish", reason: openAiFinishReason(finish) });
    const usage =
      readOpenAiUsage(chunk.usage) ??
      readOpenAiUsage(readRecord(readRecord(chunk, "x_groq"), "usage"));
    if (usage !== undefined) deltas.push({ type: "usage", usage });
    return deltas;
  };
}
