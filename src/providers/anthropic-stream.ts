/**
 * @module
 * Reads Anthropic Messages streams: `message_start` (input tokens), `content_block_start` and
 * `content_block_delta` (text), `message_delta` (stop reason, cumulative output tokens),
 * `message_stop` (done), `ping` (ignored) and `error` events. Unknown event types are ignored,
 * as Anthropic asks clients to do.
 */

import {
  anthropicErrorStatus,
  anthropicFinishReason,
  readAnthropicError,
  readAnthropicUsage,
} from "./anthropic-format.ts";
import { readRecord, readString } from "./json.ts";
import { type ProviderIdentity, readStreamJson } from "./provider-body.ts";
import type { StreamDelta, StreamParser, TokenUsage } from "./types.ts";

function usageDelta(usage: unknown, keep: "tokensIn" | "both"): StreamDelta[] {
  const { tokensIn, tokensOut } = readAnthropicUsage(usage);
  const picked: Partial<TokenUsage> = {
    ...(tokensIn === undefined ? {} : { tokensIn }),
    ...(tokensOut === undefined || keep === "tokensIn" ? {} : { tokensOut }),
  };
  return Object.keys(picked).length === 0 ? [] : [{ type: "usage", usage: picked }];
}

function textDelta(text: string | undefined): StreamDelta[] {
  return text === undefined || text === "" ? [] : [{ type: "text", text }];
}

/** A stream parser for one Anthropic streamed response. */
export function createAnthropicStreamParser(provider: ProviderIdentity): StreamParser {
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
