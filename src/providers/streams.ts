/**
 * @module
 * Stream readers: one server-sent event of a provider's stream in, normalised deltas out. Kept
 * apart from the request/response adapters, so code that never streams (a `client.chat`-only
 * bundle) does not carry them.
 *
 * - OpenAI-compatible: `data: {choices:[{delta:{content}, finish_reason}]}` chunks, an optional
 *   usage chunk (or Groq's `x_groq.usage`), then `data: [DONE]`; mid-stream `{error: {...}}`
 *   chunks (OpenRouter).
 * - Anthropic: `message_start` (input tokens), `content_block_start` / `content_block_delta`
 *   (text), `message_delta` (stop reason, cumulative output tokens), `message_stop` (done), `ping`
 *   and `error` events. Unknown event types are ignored, as Anthropic asks.
 * - Gemini: partial GenerateContentResponses, no `[DONE]`: the chunk whose candidate carries a
 *   `finishReason` (or a prompt block) ends the stream, with `done` after its `finish`.
 * - Workers AI: `{"response": "…"}` events, a final one with `usage`, then `[DONE]`.
 *
 * An event whose data is not a JSON object becomes an `error` delta of type
 * {@link invalidStreamEventType}; readers decide whether to skip it.
 */

import {
  anthropicErrorStatus,
  anthropicFinishReason,
  readAnthropicError,
  readAnthropicUsage,
} from "./anthropic.ts";
import {
  googleFinishReason,
  readBlockReason,
  readCandidateText,
  readGoogleError,
  readGoogleUsage,
} from "./google-ai-studio.ts";
import {
  asNumber,
  asString,
  at,
  excerpt,
  isRecord,
  type JsonRecord,
  type ProviderIdentity,
  parseJson,
  readCloudflareError,
} from "./json.ts";
import { openAiFinishReason, readOpenAiError, readOpenAiUsage } from "./openai.ts";
import type {
  ProviderAdapter,
  ProviderErrorInfo,
  SseEvent,
  StreamDelta,
  StreamParser,
  TokenUsage,
} from "./types.ts";

/** The status used for stream events that are not valid JSON: a bad upstream answer. */
export const invalidStreamEventStatus = 502;

/** The `type` of the `error` delta for a stream event that is not a JSON object. */
export const invalidStreamEventType = "invalid_stream_event";

/** The event's data as a JSON object, or the `error` delta that says it is not one. */
function readEventJson(provider: ProviderIdentity, event: SseEvent): JsonRecord | StreamDelta[] {
  const parsed = parseJson(event.data);
  if (parsed.ok && isRecord(parsed.value)) return parsed.value;
  const error: ProviderErrorInfo = {
    status: invalidStreamEventStatus,
    type: invalidStreamEventType,
    message:
      `${provider.displayName} sent a stream event that is not a JSON object: ` +
      `${excerpt(event.data) || "(empty)"}`,
  };
  return [{ type: "error", error }];
}

/** An `error` delta for a `{ error: { code, ... } }` chunk, with the code as status when it is one. */
function errorDelta(chunk: JsonRecord, error: { type: string; message: string }): StreamDelta[] {
  const code = asNumber(at(chunk, "error", "code"));
  return [
    {
      type: "error",
      error: { status: code !== undefined && code >= 400 && code <= 599 ? code : 500, ...error },
    },
  ];
}

function openAiParser(provider: ProviderIdentity): StreamParser {
  return (event) => {
    if (event.data.trim() === "[DONE]") return [{ type: "done" }];
    const chunk = readEventJson(provider, event);
    if (Array.isArray(chunk)) return chunk;
    if (chunk.error !== undefined && chunk.error !== null) {
      return errorDelta(
        chunk,
        readOpenAiError(chunk) ?? { type: "unknown", message: JSON.stringify(chunk.error) },
      );
    }
    const deltas: StreamDelta[] = [];
    const choice = at(chunk, "choices", 0);
    const text = asString(at(choice, "delta", "content"));
    if (text) deltas.push({ type: "text", text });
    const finish = asString(at(choice, "finish_reason"));
    if (finish !== undefined) deltas.push({ type: "finish", reason: openAiFinishReason(finish) });
    const usage = readOpenAiUsage(chunk.usage) ?? readOpenAiUsage(at(chunk, "x_groq", "usage"));
    if (usage !== undefined) deltas.push({ type: "usage", usage });
    return deltas;
  };
}

function usageDelta(usage: Partial<TokenUsage>): StreamDelta[] {
  return Object.keys(usage).length === 0 ? [] : [{ type: "usage", usage }];
}

function anthropicParser(provider: ProviderIdentity): StreamParser {
  return (event) => {
    const data = readEventJson(provider, event);
    if (Array.isArray(data)) return data;
    const text = (value: unknown): StreamDelta[] => {
      const chunk = asString(value);
      return chunk ? [{ type: "text", text: chunk }] : [];
    };
    switch (asString(data.type) ?? event.event) {
      case "message_start": {
        // Output tokens here are a running start value; message_delta carries the total.
        const { tokensIn } = readAnthropicUsage(at(data, "message", "usage"));
        return tokensIn === undefined ? [] : [{ type: "usage", usage: { tokensIn } }];
      }
      case "content_block_start":
        return at(data, "content_block", "type") === "text"
          ? text(at(data, "content_block", "text"))
          : [];
      case "content_block_delta":
        return at(data, "delta", "type") === "text_delta" ? text(at(data, "delta", "text")) : [];
      case "message_delta": {
        const reason = asString(at(data, "delta", "stop_reason"));
        const finish: StreamDelta[] =
          reason === undefined ? [] : [{ type: "finish", reason: anthropicFinishReason(reason) }];
        return [...finish, ...usageDelta(readAnthropicUsage(data.usage))];
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

function googleParser(provider: ProviderIdentity): StreamParser {
  let ended = false;
  return (event) => {
    if (ended) return [];
    const chunk = readEventJson(provider, event);
    if (Array.isArray(chunk)) return chunk;
    const error = readGoogleError(chunk);
    if (error !== undefined) return errorDelta(chunk, error);
    const deltas: StreamDelta[] = [];
    const candidate = at(chunk, "candidates", 0);
    const text = readCandidateText(candidate);
    if (text !== "") deltas.push({ type: "text", text });
    const usage = readGoogleUsage(chunk.usageMetadata);
    if (usage !== undefined) deltas.push({ type: "usage", usage });
    const reason = asString(at(candidate, "finishReason"));
    const blocked = candidate === undefined && readBlockReason(chunk) !== undefined;
    if (reason !== undefined || blocked) {
      ended = true;
      const finish = blocked ? "content_filter" : googleFinishReason(reason);
      deltas.push({ type: "finish", reason: finish }, { type: "done" });
    }
    return deltas;
  };
}

function workersAiParser(provider: ProviderIdentity): StreamParser {
  let finished = false;
  return (event) => {
    if (event.data.trim() === "[DONE]") {
      const finish: StreamDelta[] = finished ? [] : [{ type: "finish", reason: "stop" }];
      finished = true;
      return [...finish, { type: "done" }];
    }
    const chunk = readEventJson(provider, event);
    if (Array.isArray(chunk)) return chunk;
    const error = readCloudflareError(chunk);
    if (error !== undefined) return [{ type: "error", error: { status: 500, ...error } }];
    const deltas: StreamDelta[] = [];
    const text = asString(chunk.response);
    if (text) deltas.push({ type: "text", text });
    const usage = readOpenAiUsage(chunk.usage);
    if (usage !== undefined) deltas.push({ type: "usage", usage });
    const reason = asString(chunk.finish_reason);
    if (reason !== undefined && !finished) {
      finished = true;
      deltas.push({ type: "finish", reason: openAiFinishReason(reason) });
    }
    return deltas;
  };
}

const parsers = {
  openai: openAiParser,
  anthropic: anthropicParser,
  google: googleParser,
  "workers-ai": workersAiParser,
} as const;

/** A fresh stream parser for one streamed response of `adapter`'s provider. Stateful. */
export function streamParserFor(adapter: ProviderAdapter): StreamParser {
  return parsers[adapter.format](adapter);
}
