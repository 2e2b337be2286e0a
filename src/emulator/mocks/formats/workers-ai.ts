/**
 * @module
 * The Workers AI run API wire format: the model is the path (`/@cf/meta/llama-3.1-8b-instruct`,
 * also under `…/run/`), `Authorization: Bearer`, answers in the Cloudflare envelope
 * `{ result, success, errors, messages }`, streams of `data: {"response": …}` ending in
 * `data: [DONE]`, and `{ success: false, errors: [{ code, message }] }` errors.
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

/** Cloudflare API error codes; the Workers AI ones are as close to the real ones as known. */
const errorCodes: Readonly<Record<MockErrorKind, number>> = {
  unauthorized: 10000,
  bad_request: 5006,
  not_found: 7003,
  method_not_allowed: 10405,
  too_large: 3006,
  rate_limit: 3040,
  server_error: 3043,
  unavailable: 3040,
  overloaded: 3040,
  context_length: 5021,
  content_filter: 3030,
};

function usageOf(answer: MockAnswer) {
  return {
    prompt_tokens: answer.tokensIn,
    completion_tokens: answer.tokensOut,
    total_tokens: answer.tokensIn + answer.tokensOut,
  };
}

function modelOf(pathname: string): string | undefined {
  const afterRun = /(?:^|\/)run\/(.+)$/.exec(pathname)?.[1];
  const model = afterRun ?? pathname.replace(/^\/+/, "");
  return model.startsWith("@") && model.length > 1 ? model : undefined;
}

/** The Workers AI format. */
export const workersAiFormat: MockWireFormat = {
  matchRoute(pathname) {
    const model = modelOf(pathname);
    return model === undefined ? undefined : { model, streamByPath: false };
  },
  readKey: readBearer,
  readRequest(body, route) {
    const messages = readArray(body, "messages");
    const prompt = readString(body, "prompt");
    if ((messages === undefined || messages.length === 0) && prompt === undefined) {
      return { problem: "Type mismatch: the input needs either messages or prompt." };
    }
    const limit = readTokenLimit(body.max_tokens, "max_tokens");
    if ("problem" in limit) return limit;
    const texts = (messages ?? []).map((message) =>
      typeof message === "object" && message !== null && "content" in message
        ? contentText(message.content)
        : "",
    );
    return {
      model: route.model ?? "",
      stream: body.stream === true,
      ...limit,
      promptText: [prompt ?? "", ...texts].join(" "),
      includeUsage: true,
      ...prefillOf(messages ?? []),
    };
  },
  answerBody: (answer) => ({
    result: { response: answer.text, usage: usageOf(answer), finish_reason: answer.finish },
    success: true,
    errors: [],
    messages: [],
  }),
  streamEvents(answer, options) {
    const events: SseEvent[] = answer.chunks.map((text) => ({
      data: JSON.stringify({ response: text, p: "abcdef" }),
    }));
    events.push({
      data: JSON.stringify({ response: "", usage: usageOf(answer), finish_reason: answer.finish }),
    });
    if (options.endMarker) events.push({ data: "[DONE]" });
    return { events, preludeCount: 0 };
  },
  errorBody: (kind, _status, message) => ({
    result: null,
    success: false,
    errors: [{ code: errorCodes[kind], message }],
    messages: [],
  }),
};
