/**
 * @module
 * The OpenAI Chat Completions wire format, spoken by the mocks of OpenAI, Groq, Mistral,
 * DeepSeek, Grok, OpenRouter and every `custom-*` provider: any path ending in
 * `chat/completions`, `Authorization: Bearer`, `chat.completion` bodies, `chat.completion.chunk`
 * streams ending in `data: [DONE]`, and `{ error: { message, type, param, code } }` errors.
 */

import { readArray, readString } from "../../../providers/json.ts";
import type { SseEvent } from "../../../providers/types.ts";
import type { MockAnswer } from "../canonical-answer.ts";
import {
  contentText,
  type MockErrorKind,
  type MockWireFormat,
  prefillOf,
  readBearer,
  readTokenLimit,
} from "./types.ts";

const errorTypes: Readonly<Record<MockErrorKind, { type: string; code: string | null }>> = {
  unauthorized: { type: "invalid_request_error", code: "invalid_api_key" },
  bad_request: { type: "invalid_request_error", code: null },
  not_found: { type: "invalid_request_error", code: "unknown_url" },
  method_not_allowed: { type: "invalid_request_error", code: "method_not_allowed" },
  too_large: { type: "invalid_request_error", code: "request_too_large" },
  rate_limit: { type: "requests", code: "rate_limit_exceeded" },
  server_error: { type: "server_error", code: null },
  unavailable: { type: "server_error", code: "service_unavailable" },
  overloaded: { type: "server_error", code: "overloaded" },
  context_length: { type: "invalid_request_error", code: "context_length_exceeded" },
  content_filter: { type: "invalid_request_error", code: "content_filter" },
};

function usageOf(answer: MockAnswer) {
  return {
    prompt_tokens: answer.tokensIn,
    completion_tokens: answer.tokensOut,
    total_tokens: answer.tokensIn + answer.tokensOut,
  };
}

function chunk(answer: MockAnswer, choices: unknown[], extra: Record<string, unknown> = {}) {
  const data = {
    id: answer.id,
    object: "chat.completion.chunk",
    created: Math.floor(answer.createdAt / 1000),
    model: answer.model,
    choices,
    ...extra,
  };
  return { data: JSON.stringify(data) };
}

/**
 * The OpenAI format. Mistral sends usage in its last chunk without being asked (it rejects
 * `stream_options`), so its mock does too.
 */
export function createOpenAiFormat(slug: string): MockWireFormat {
  const alwaysSendsUsage = slug === "mistral";
  return {
    matchRoute: (pathname) =>
      pathname.endsWith("/chat/completions") ? { model: null, streamByPath: false } : undefined,
    readKey: readBearer,
    readRequest(body) {
      const model = readString(body, "model");
      if (model === undefined || model === "") {
        return { problem: "you must provide a model parameter (a non-empty string)." };
      }
      const messages = readArray(body, "messages");
      if (messages === undefined || messages.length === 0) {
        return { problem: "messages must be a non-empty array." };
      }
      const field =
        body.max_completion_tokens === undefined ? "max_tokens" : "max_completion_tokens";
      const limit = readTokenLimit(body[field], field);
      if ("problem" in limit) return limit;
      const streamOptions = body.stream_options;
      const includeUsage =
        typeof streamOptions === "object" &&
        streamOptions !== null &&
        "include_usage" in streamOptions &&
        streamOptions.include_usage === true;
      return {
        model,
        stream: body.stream === true,
        ...limit,
        promptText: messages
          .map((message) =>
            typeof message === "object" && message !== null && "content" in message
              ? contentText(message.content)
              : "",
          )
          .join(" "),
        includeUsage,
        ...prefillOf(messages),
      };
    },
    answerBody: (answer) => ({
      id: answer.id,
      object: "chat.completion",
      created: Math.floor(answer.createdAt / 1000),
      model: answer.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: answer.text, refusal: null },
          logprobs: null,
          finish_reason: answer.finish,
        },
      ],
      usage: usageOf(answer),
    }),
    streamEvents(answer, options) {
      const events: SseEvent[] = answer.chunks.map((text, index) =>
        chunk(answer, [
          {
            index: 0,
            delta: index === 0 ? { role: "assistant", content: text } : { content: text },
            logprobs: null,
            finish_reason: null,
          },
        ]),
      );
      const finishChoice = { index: 0, delta: {}, logprobs: null, finish_reason: answer.finish };
      if (alwaysSendsUsage) {
        events.push(chunk(answer, [finishChoice], { usage: usageOf(answer) }));
      } else {
        events.push(chunk(answer, [finishChoice]));
        if (options.includeUsage) events.push(chunk(answer, [], { usage: usageOf(answer) }));
      }
      if (options.endMarker) events.push({ data: "[DONE]" });
      return { events, preludeCount: 0 };
    },
    errorBody(kind, _status, message) {
      const { type, code } = errorTypes[kind];
      return { error: { message, type, param: null, code } };
    },
  };
}
