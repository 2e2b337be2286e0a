/**
 * @module
 * The Gemini API (Google AI Studio) wire format: `v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`, `x-goog-api-key`, `GenerateContentResponse` bodies, SSE
 * streams of partial responses whose last carries `finishReason` and `usageMetadata`, and
 * `{ error: { code, message, status } }` errors.
 */

import { isRecord, readArray, readRecord } from "../../../providers/json.ts";
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

const errorStatuses: Readonly<Record<MockErrorKind, string>> = {
  unauthorized: "UNAUTHENTICATED",
  bad_request: "INVALID_ARGUMENT",
  not_found: "NOT_FOUND",
  method_not_allowed: "INVALID_ARGUMENT",
  too_large: "INVALID_ARGUMENT",
  rate_limit: "RESOURCE_EXHAUSTED",
  server_error: "INTERNAL",
  unavailable: "UNAVAILABLE",
  overloaded: "UNAVAILABLE",
  context_length: "INVALID_ARGUMENT",
  content_filter: "INVALID_ARGUMENT",
};

const routePattern = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

function partsText(content: unknown): string {
  const parts = readArray(content, "parts") ?? [];
  return contentText(parts);
}

function candidate(answer: MockAnswer, text: string, finished: boolean) {
  return {
    content: { parts: [{ text }], role: "model" },
    ...(finished ? { finishReason: answer.finish === "length" ? "MAX_TOKENS" : "STOP" } : {}),
    index: 0,
  };
}

function usageOf(answer: MockAnswer) {
  return {
    promptTokenCount: answer.tokensIn,
    candidatesTokenCount: answer.tokensOut,
    totalTokenCount: answer.tokensIn + answer.tokensOut,
  };
}

/** The Google AI Studio format. */
export const googleFormat: MockWireFormat = {
  matchRoute(pathname) {
    const match = routePattern.exec(pathname);
    if (match === null) return undefined;
    return { model: match[1] ?? "", streamByPath: match[2] === "streamGenerateContent" };
  },
  readKey: (headers) => headerValue(headers, "x-goog-api-key")?.trim(),
  readRequest(body, route) {
    const contents = readArray(body, "contents");
    if (contents === undefined || contents.length === 0) {
      return { problem: "* GenerateContentRequest.contents: contents is not specified" };
    }
    const generationConfig = readRecord(body, "generationConfig");
    const limit = readTokenLimit(
      generationConfig?.maxOutputTokens,
      "generationConfig.maxOutputTokens",
    );
    if ("problem" in limit) return limit;
    const system = isRecord(body.systemInstruction) ? partsText(body.systemInstruction) : "";
    return {
      model: route.model ?? "",
      stream: route.streamByPath,
      ...limit,
      promptText: [system, ...contents.map(partsText)].join(" "),
      includeUsage: true,
      ...prefillOf(contents),
    };
  },
  answerBody: (answer) => ({
    candidates: [candidate(answer, answer.text, true)],
    usageMetadata: usageOf(answer),
    modelVersion: answer.model,
    responseId: answer.id,
  }),
  streamEvents(answer, options) {
    const last = answer.chunks.length - 1;
    const events: SseEvent[] = answer.chunks.map((text, index) => {
      const data: Record<string, unknown> = {
        candidates: [candidate(answer, text, index === last && options.endMarker)],
        ...(index === last ? { usageMetadata: usageOf(answer) } : {}),
        modelVersion: answer.model,
        responseId: answer.id,
      };
      return { data: JSON.stringify(data) };
    });
    return { events, preludeCount: 0 };
  },
  errorBody: (kind, status, message) => ({
    error: { code: status, message, status: errorStatuses[kind] },
  }),
};
