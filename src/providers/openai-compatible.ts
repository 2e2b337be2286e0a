/**
 * @module
 * One adapter factory for every provider that speaks OpenAI's Chat Completions format: OpenAI,
 * Groq, Mistral, DeepSeek, xAI Grok, OpenRouter and `custom-<slug>` providers.
 */

import { readArray, readRecord, readString } from "./json.ts";
import { openAiFinishReason, readOpenAiError, readOpenAiUsage } from "./openai-format.ts";
import { createOpenAiStreamParser } from "./openai-stream.ts";
import { invalidResponse, readErrorBody, readResponseJson } from "./provider-body.ts";
import type { ChatRequest, ChatResult, ProviderAdapter } from "./types.ts";

/** How one OpenAI-compatible provider differs from the others. */
export interface OpenAiCompatibleOptions {
  /** The AI Gateway provider slug, e.g. `groq` or `custom-acme`. */
  readonly slug: string;
  readonly displayName: string;
  /** The real upstream base URL, ending in `/`. */
  readonly upstreamBaseUrl: string;
  /** The chat endpoint under the base URL, e.g. `chat/completions` or `v1/chat/completions`. */
  readonly chatPath: string;
  /**
   * The body field for `maxTokens`. Default `max_tokens`; OpenAI's reasoning models only accept
   * `max_completion_tokens`, and Mistral rejects it.
   */
  readonly maxTokensField?: "max_tokens" | "max_completion_tokens";
  /**
   * Whether to send `stream_options: { include_usage: true }` when streaming, so the stream ends
   * with a usage chunk. Default true; Mistral rejects the field (and sends usage anyway).
   */
  readonly sendsStreamUsageOption?: boolean;
}

/**
 * Creates an adapter for an OpenAI-compatible chat API.
 * @example
 * const acme = createOpenAiCompatibleAdapter({
 *   slug: "custom-acme", displayName: "Acme", upstreamBaseUrl: "https://llm.acme.dev/v1/",
 *   chatPath: "chat/completions",
 * });
 */
export function createOpenAiCompatibleAdapter(options: OpenAiCompatibleOptions): ProviderAdapter {
  const provider = { slug: options.slug, displayName: options.displayName };
  const maxTokensField = options.maxTokensField ?? "max_tokens";
  const sendsStreamUsageOption = options.sendsStreamUsageOption ?? true;

  return {
    slug: options.slug,
    displayName: options.displayName,
    format: "openai",
    upstreamBaseUrl: options.upstreamBaseUrl,
    endpoint: () => options.chatPath,
    authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
    requestBody(model: string, request: ChatRequest) {
      const body: Record<string, unknown> = {
        model,
        messages: request.messages.map(({ role, content }) => ({ role, content })),
      };
      if (request.maxTokens !== undefined) body[maxTokensField] = request.maxTokens;
      if (request.temperature !== undefined) body.temperature = request.temperature;
      if (request.topP !== undefined) body.top_p = request.topP;
      if (request.stop !== undefined && request.stop.length > 0) body.stop = [...request.stop];
      if (request.stream === true) {
        body.stream = true;
        if (sendsStreamUsageOption) body.stream_options = { include_usage: true };
      }
      return body;
    },
    parseResponse(body: unknown, requestedModel?: string): ChatResult {
      const json = readResponseJson(provider, body);
      const embeddedError = readOpenAiError(json);
      if (embeddedError !== undefined) {
        throw invalidResponse(provider, `an error instead of an answer: ${embeddedError.message}`);
      }
      const choice = readArray(json, "choices")?.[0];
      const message = readRecord(choice, "message");
      if (message === undefined)
        throw invalidResponse(provider, "a body without choices[0].message");
      return {
        text: readString(message, "content") ?? readString(message, "refusal") ?? "",
        provider: options.slug,
        model: readString(json, "model") ?? requestedModel ?? "",
        usage: readOpenAiUsage(json.usage) ?? { tokensIn: 0, tokensOut: 0 },
        finishReason: openAiFinishReason(readString(choice, "finish_reason")),
      };
    },
    parseError: (status, body) => readErrorBody(provider, status, body, readOpenAiError),
    createStreamParser: () => createOpenAiStreamParser(provider),
  };
}
