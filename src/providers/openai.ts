/**
 * @module
 * Every provider that speaks OpenAI's Chat Completions format, from one adapter factory: OpenAI,
 * Groq, Mistral, DeepSeek, xAI Grok, OpenRouter and `custom-<slug>` providers (AI Gateway custom
 * providers, assumed OpenAI-compatible). Also the format's vocabulary: finish reasons, usage,
 * error shapes, and the stream reader (`data: {choices:[{delta:{content}, finish_reason}]}`
 * chunks, an optional usage chunk, then `data: [DONE]`; Groq's `x_groq.usage`; mid-stream
 * `{error: {...}}` chunks from OpenRouter).
 */

import {
  type ErrorShapeReader,
  invalidResponse,
  isRecord,
  messageText,
  ownEntry,
  type ProviderIdentity,
  readArray,
  readErrorBody,
  readNumber,
  readRecord,
  readResponseJson,
  readStreamJson,
  readString,
} from "./json.ts";
import type {
  ChatRequest,
  ChatResult,
  FinishReason,
  ProviderAdapter,
  StreamDelta,
  StreamParser,
  TokenUsage,
} from "./types.ts";

const finishReasons: Readonly<Record<string, FinishReason>> = {
  stop: "stop",
  end_turn: "stop",
  length: "length",
  model_length: "length",
  content_filter: "content_filter",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  error: "error",
};

/** Maps an OpenAI-style `finish_reason` to the normalised reason. */
export function openAiFinishReason(reason: string | undefined): FinishReason {
  return ownEntry(finishReasons, reason) ?? "unknown";
}

/**
 * Reads `{ prompt_tokens, completion_tokens }`; `undefined` when absent or null. Reasoning tokens
 * count as output: when a provider leaves them out of `completion_tokens` (xAI), which shows as
 * prompt + completion + reasoning = total, they are added back.
 */
export function readOpenAiUsage(usage: unknown): TokenUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const tokensIn = readNumber(usage, "prompt_tokens") ?? 0;
  const completion = readNumber(usage, "completion_tokens") ?? 0;
  const reasoning = readNumber(readRecord(usage, "completion_tokens_details"), "reasoning_tokens");
  const reasoningExcluded =
    reasoning !== undefined &&
    reasoning > 0 &&
    tokensIn + completion + reasoning === readNumber(usage, "total_tokens");
  return { tokensIn, tokensOut: reasoningExcluded ? completion + reasoning : completion };
}

/**
 * A specific `code` (`context_length_exceeded`) beats `type`; numeric codes (Mistral's `"1300"`)
 * and category codes ending in `_error` (DeepSeek's `invalid_request_error`) say less than `type`.
 */
function errorType(code: unknown, type: unknown): string {
  if (typeof code === "string" && code !== "" && !/^\d+$|_error$/.test(code)) return code;
  if (typeof type === "string" && type !== "") return type;
  if (typeof code === "number" || (typeof code === "string" && code !== "")) return String(code);
  return "unknown";
}

/**
 * Reads the error shapes OpenAI-compatible APIs use: `{ error: { message, type, code } }`
 * (OpenAI, Groq, DeepSeek, OpenRouter with a numeric code), `{ code, error: "text" }` (xAI) and
 * `{ object: "error", message, type, code }` (Mistral).
 */
export const readOpenAiError: ErrorShapeReader = (json) => {
  if (!isRecord(json)) return undefined;
  const nested = json.error;
  if (isRecord(nested)) {
    const message = messageText(nested.message);
    return message === undefined
      ? undefined
      : { type: errorType(nested.code, nested.type), message };
  }
  if (typeof nested === "string") return { type: errorType(json.code, json.type), message: nested };
  const message =
    typeof json.message === "string" || json.object === "error"
      ? messageText(json.message)
      : undefined;
  return message === undefined ? undefined : { type: errorType(json.code, json.type), message };
};

/** A stream parser for one OpenAI-compatible streamed response. */
function createOpenAiStreamParser(provider: ProviderIdentity): StreamParser {
  return (event) => {
    if (event.data.trim() === "[DONE]") return [{ type: "done" }];
    const parsed = readStreamJson(provider, event);
    if (!parsed.ok) return [parsed.delta];
    const chunk = parsed.value;
    if (chunk.error !== undefined && chunk.error !== null) {
      const error = readOpenAiError(chunk) ?? {
        type: "unknown",
        message: JSON.stringify(chunk.error),
      };
      const code = readNumber(readRecord(chunk, "error"), "code");
      const status = code !== undefined && code >= 400 && code <= 599 ? code : 500;
      return [{ type: "error", error: { status, ...error } }];
    }
    const deltas: StreamDelta[] = [];
    const choice = readArray(chunk, "choices")?.[0];
    const text = readString(readRecord(choice, "delta"), "content");
    if (text) deltas.push({ type: "text", text });
    const finish = readString(choice, "finish_reason");
    if (finish !== undefined) deltas.push({ type: "finish", reason: openAiFinishReason(finish) });
    const usage =
      readOpenAiUsage(chunk.usage) ??
      readOpenAiUsage(readRecord(readRecord(chunk, "x_groq"), "usage"));
    if (usage !== undefined) deltas.push({ type: "usage", usage });
    return deltas;
  };
}

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
  return {
    ...provider,
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
      if (request.stop?.length) body.stop = [...request.stop];
      if (request.stream) {
        body.stream = true;
        if (options.sendsStreamUsageOption !== false) body.stream_options = { include_usage: true };
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
      if (message === undefined) {
        throw invalidResponse(provider, "a body without choices[0].message");
      }
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

/** OpenAI: `https://api.openai.com/v1/chat/completions`, `authorization: Bearer <key>`. */
export const openAiProvider = createOpenAiCompatibleAdapter({
  slug: "openai",
  displayName: "OpenAI",
  upstreamBaseUrl: "https://api.openai.com/v1/",
  chatPath: "chat/completions",
  maxTokensField: "max_completion_tokens",
});

/** Groq: `https://api.groq.com/openai/v1/chat/completions`; streams carry `x_groq.usage`. */
export const groqProvider = createOpenAiCompatibleAdapter({
  slug: "groq",
  displayName: "Groq",
  upstreamBaseUrl: "https://api.groq.com/openai/v1/",
  chatPath: "chat/completions",
  maxTokensField: "max_completion_tokens",
});

/**
 * Mistral AI: `https://api.mistral.ai/v1/chat/completions`. Mistral rejects unknown fields with
 * HTTP 422, so requests carry no `stream_options` (usage comes in the last chunk anyway) and use
 * `max_tokens`; errors are `{ object: "error", message, type, code }`.
 */
export const mistralProvider = createOpenAiCompatibleAdapter({
  slug: "mistral",
  displayName: "Mistral AI",
  upstreamBaseUrl: "https://api.mistral.ai/",
  chatPath: "v1/chat/completions",
  sendsStreamUsageOption: false,
});

/** DeepSeek: `https://api.deepseek.com/chat/completions`. */
export const deepSeekProvider = createOpenAiCompatibleAdapter({
  slug: "deepseek",
  displayName: "DeepSeek",
  upstreamBaseUrl: "https://api.deepseek.com/",
  chatPath: "chat/completions",
});

/** xAI Grok: `https://api.x.ai/v1/chat/completions`; errors are `{ code, error: "text" }`. */
export const grokProvider = createOpenAiCompatibleAdapter({
  slug: "grok",
  displayName: "xAI Grok",
  upstreamBaseUrl: "https://api.x.ai/",
  chatPath: "v1/chat/completions",
});

/** OpenRouter: `https://openrouter.ai/api/v1/chat/completions`; errors carry numeric codes. */
export const openRouterProvider = createOpenAiCompatibleAdapter({
  slug: "openrouter",
  displayName: "OpenRouter",
  upstreamBaseUrl: "https://openrouter.ai/api/",
  chatPath: "v1/chat/completions",
});

/** Custom provider slugs: `custom-` then lowercase letters, digits and hyphens (64 at most). */
export const customProviderPattern = /^custom-[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * The upstream of a custom provider is its configured `base_url`, which Stepwise does not know;
 * this placeholder never resolves, and the emulator overrides it.
 */
export const customUpstreamPlaceholder = "https://custom.invalid/";

/**
 * An OpenAI-compatible adapter for a custom provider. The caller checks the slug against
 * {@link customProviderPattern} first.
 */
export function createCustomProvider(slug: string): ProviderAdapter {
  return createOpenAiCompatibleAdapter({
    slug,
    displayName: `${slug.slice("custom-".length)} (custom provider)`,
    upstreamBaseUrl: customUpstreamPlaceholder,
    chatPath: "chat/completions",
  });
}
