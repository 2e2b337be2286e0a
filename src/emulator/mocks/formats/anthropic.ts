/**
 * @module
 * Anthropic's Messages wire format: `v1/messages`, `x-api-key` plus a required
 * `anthropic-version`, `message` bodies, the `message_start` … `message_stop` event stream and
 * `{ type: "error", error: { type, message } }` errors.
 */

import { readArray, readString } from "../../../providers/json.ts";
import type { SseEvent } from "../../../providers/types.ts";
import type { MockAnswer } from "../canonical-answer.ts";
import {
  contentText,
  headerValue,
  type MockErrorKind,
  type MockWireFormat,
  prefillOf,
  readTokenLimit,
} from "./types.ts";

const errorTypes: Readonly<Record<MockErrorKind, string>> = {
  unauthorized: "authentication_error",
  bad_request: "invalid_request_error",
  not_found: "not_found_error",
  method_not_allowed: "invalid_request_error",
  too_large: "request_too_large",
  rate_limit: "rate_limit_error",
  server_error: "api_error",
  unavailable: "api_error",
  overloaded: "overloaded_error",
  context_length: "invalid_request_error",
  content_filter: "invalid_request_error",
};

function stopReason(answer: MockAnswer): string {
  return answer.finish === "length" ? "max_tokens" : "end_turn";
}

function event(type: string, data: Record<string, unknown>): SseEvent {
  return { event: type, data: JSON.stringify({ type, ...data }) };
}

/** The Anthropic format. */
export const anthropicFormat: MockWireFormat = {
  continuesPrefill: true,
  streamErrorEvent: "error",
  matchRoute: (pathname) =>
    pathname.endsWith("/v1/messages") ? { model: null, streamByPath: false } : undefined,
  readKey: (headers) => headerValue(headers, "x-api-key")?.trim(),
  checkHeaders: (headers) =>
    headerValue(headers, "anthropic-version") === undefined
      ? "anthropic-version: header is required."
      : undefined,
  readRequest(body) {
    const model = readString(body, "model");
    if (model === undefined || model === "") return { problem: "model: Field required." };
    const messages = readArray(body, "messages");
    if (messages === undefined || messages.length === 0) {
      return { problem: "messages: at least one message is required." };
    }
    if (body.max_tokens === undefined) return { problem: "max_tokens: Field required." };
    const limit = readTokenLimit(body.max_tokens, "max_tokens");
    if ("problem" in limit) return limit;
    const texts = messages.map((message) =>
      typeof message === "object" && message !== null && "content" in message
        ? contentText(message.content)
        : "",
    );
    return {
      model,
      stream: body.stream === true,
      ...limit,
      promptText: [contentText(body.system), ...texts].join(" "),
      includeUsage: true,
      ...prefillOf(messages),
    };
  },
  answerBody: (answer) => ({
    id: answer.id,
    type: "message",
    role: "assistant",
    model: answer.model,
    content: [{ type: "text", text: answer.text }],
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: { input_tokens: answer.tokensIn, output_tokens: answer.tokensOut },
  }),
  streamEvents(answer, options) {
    const events: SseEvent[] = [
      event("message_start", {
        message: {
          id: answer.id,
          type: "message",
          role: "assistant",
          model: answer.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: answer.tokensIn, output_tokens: 1 },
        },
      }),
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      event("ping", {}),
    ];
    const preludeCount = events.length;
    for (const text of answer.chunks) {
      events.push(event("content_block_delta", { index: 0, delta: { type: "text_delta", text } }));
    }
    events.push(
      event("content_block_stop", { index: 0 }),
      event("message_delta", {
        delta: { stop_reason: stopReason(answer), stop_sequence: null },
        usage: { output_tokens: answer.tokensOut },
      }),
    );
    if (options.endMarker) events.push(event("message_stop", {}));
    return { events, preludeCount };
  },
  errorBody: (kind, _status, message) => ({
    type: "error",
    error: { type: errorTypes[kind], message },
  }),
};
