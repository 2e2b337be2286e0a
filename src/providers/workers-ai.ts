/**
 * @module
 * Cloudflare Workers AI (`/ai/run/{model}`): the model is the endpoint, answers come in the
 * Cloudflare envelope `{ result: { response, usage }, success, errors, messages }`, and streams
 * are `data: {"response": "…"}` events, a final one with `usage`, then `data: [DONE]`.
 *
 * Workers AI takes no stop sequences, so `stop` is not sent. It defaults to 256 output tokens
 * when `max_tokens` is absent.
 */

import {
  invalidResponse,
  type ProviderIdentity,
  readArray,
  readCloudflareError,
  readErrorBody,
  readRecord,
  readResponseJson,
  readStreamJson,
  readString,
} from "./json.ts";
import { openAiFinishReason, readOpenAiUsage } from "./openai.ts";
import type {
  ChatRequest,
  ChatResult,
  FinishReason,
  ProviderAdapter,
  StreamDelta,
  StreamParser,
} from "./types.ts";

const provider: ProviderIdentity = { slug: "workers-ai", displayName: "Workers AI" };

/**
 * The account-less stand-in for `https://api.cloudflare.com/client/v4/accounts/{account}/ai/run/`.
 * Through AI Gateway the account comes from the gateway URL.
 */
export const workersAiUpstreamBaseUrl = "https://api.cloudflare.com/client/v4/ai/run/";

function requestBody(_model: string, request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    messages: request.messages.map(({ role, content }) => ({ role, content })),
  };
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stream) body.stream = true;
  return body;
}

/** The run API reports no reason for most models: a complete answer counts as `stop`. */
function finishReasonOf(reported: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reported !== undefined) return openAiFinishReason(reported);
  return hasToolCalls ? "tool_calls" : "stop";
}

function parseResponse(body: unknown, requestedModel?: string): ChatResult {
  const json = readResponseJson(provider, body);
  if (json.success === false) {
    const message = readCloudflareError(json)?.message ?? "no message";
    throw invalidResponse(provider, `success: false instead of an answer: ${message}`);
  }
  const result = readRecord(json, "result");
  const text = readString(result, "response");
  const toolCalls = readArray(result, "tool_calls") ?? [];
  if (result === undefined || (text === undefined && toolCalls.length === 0)) {
    throw invalidResponse(provider, "a body without result.response");
  }
  return {
    text: text ?? "",
    provider: provider.slug,
    model: requestedModel ?? "",
    usage: readOpenAiUsage(result.usage) ?? { tokensIn: 0, tokensOut: 0 },
    finishReason: finishReasonOf(readString(result, "finish_reason"), toolCalls.length > 0),
  };
}

/** A stream parser for one Workers AI streamed response. */
function createStreamParser(): StreamParser {
  let finished = false;
  return (event) => {
    if (event.data.trim() === "[DONE]") {
      const finish: StreamDelta[] = finished ? [] : [{ type: "finish", reason: "stop" }];
      finished = true;
      return [...finish, { type: "done" }];
    }
    const parsed = readStreamJson(provider, event);
    if (!parsed.ok) return [parsed.delta];
    const chunk = parsed.value;
    const error = readCloudflareError(chunk);
    if (error !== undefined) return [{ type: "error", error: { status: 500, ...error } }];

    const deltas: StreamDelta[] = [];
    const text = readString(chunk, "response");
    if (text) deltas.push({ type: "text", text });
    const usage = readOpenAiUsage(chunk.usage);
    if (usage !== undefined) deltas.push({ type: "usage", usage });
    const reason = readString(chunk, "finish_reason");
    if (reason !== undefined && !finished) {
      finished = true;
      deltas.push({ type: "finish", reason: openAiFinishReason(reason) });
    }
    return deltas;
  };
}

/** Workers AI: the model id is the endpoint (`@cf/meta/llama-3.1-8b-instruct`), Bearer auth. */
export const workersAiProvider: ProviderAdapter = {
  slug: provider.slug,
  displayName: provider.displayName,
  format: "workers-ai",
  upstreamBaseUrl: workersAiUpstreamBaseUrl,
  endpoint: (model) => model,
  authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
  requestBody,
  parseResponse,
  parseError: (status, body) => readErrorBody(provider, status, body, readCloudflareError),
  createStreamParser,
};
