/**
 * @module
 * Cloudflare Workers AI (`/ai/run/{model}`): the model is the endpoint, answers come in the
 * Cloudflare envelope `{ result: { response, usage }, success, errors, messages }`, and streams
 * (read in `streams.ts`) are `data: {"response": "…"}` events, a final one with `usage`, then
 * `data: [DONE]`.
 *
 * Workers AI takes no stop sequences, so `stop` is not sent. It defaults to 256 output tokens
 * when `max_tokens` is absent.
 */

import {
  asString,
  at,
  invalidResponse,
  readCloudflareError,
  readErrorBody,
  readResponseJson,
  withoutUndefined,
} from "./json.ts";
import { openAiFinishReason, readOpenAiUsage } from "./openai.ts";
import type { ChatRequest, ChatResult, ProviderAdapter } from "./types.ts";

const provider = { slug: "workers-ai", displayName: "Workers AI" } as const;

function requestBody(_model: string, request: ChatRequest): Record<string, unknown> {
  return withoutUndefined({
    messages: request.messages.map(({ role, content }) => ({ role, content })),
    max_tokens: request.maxTokens,
    temperature: request.temperature,
    top_p: request.topP,
    stream: request.stream || undefined,
  });
}

function parseResponse(body: unknown, requestedModel?: string): ChatResult {
  const json = readResponseJson(provider, body);
  if (json.success === false) {
    const message = readCloudflareError(json)?.message ?? "no message";
    throw invalidResponse(provider, `success: false instead of an answer: ${message}`);
  }
  const result = json.result;
  const text = asString(at(result, "response"));
  const toolCalls = at(result, "tool_calls");
  const hasToolCalls = Array.isArray(toolCalls) && toolCalls.length > 0;
  if (typeof result !== "object" || result === null || (text === undefined && !hasToolCalls)) {
    throw invalidResponse(provider, "a body without result.response");
  }
  const reported = asString(at(result, "finish_reason"));
  return {
    text: text ?? "",
    provider: provider.slug,
    model: requestedModel ?? "",
    usage: readOpenAiUsage(at(result, "usage")) ?? { tokensIn: 0, tokensOut: 0 },
    // The run API reports no reason for most models: a complete answer counts as `stop`.
    finishReason:
      reported !== undefined ? openAiFinishReason(reported) : hasToolCalls ? "tool_calls" : "stop",
  };
}

/** Workers AI: the model id is the endpoint (`@cf/meta/llama-3.1-8b-instruct`), Bearer auth. */
export const workersAiProvider: ProviderAdapter = {
  ...provider,
  format: "workers-ai",
  endpoint: (model) => model,
  authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  requestBody,
  parseResponse,
  parseError: (status, body) => readErrorBody(provider, status, body, readCloudflareError),
};

/** This format's adapter (see `catalog.ts`). */
export function adapterFor(): ProviderAdapter {
  return workersAiProvider;
}
