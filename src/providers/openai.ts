/**
 * @module
 * Every provider that speaks OpenAI's Chat Completions format, from one adapter factory: OpenAI,
 * Groq, Mistral, DeepSeek, xAI Grok, OpenRouter and `custom-<slug>` providers (AI Gateway custom
 * providers, assumed OpenAI-compatible). Also the format's vocabulary (finish reasons, usage,
 * error shapes), which the stream reader (`streams.ts`) shares.
 */

import {
  asNumber,
  asString,
  at,
  type ErrorShapeReader,
  invalidResponse,
  isRecord,
  messageText,
  ownEntry,
  readErrorBody,
  readResponseJson,
  withoutUndefined,
} from "./json.ts";
import type {
  ChatRequest,
  ChatResult,
  FinishReason,
  ProviderAdapter,
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
  const tokensIn = asNumber(usage.prompt_tokens) ?? 0;
  const completion = asNumber(usage.completion_tokens) ?? 0;
  const reasoning = asNumber(at(usage, "completion_tokens_details", "reasoning_tokens")) ?? 0;
  const excluded = reasoning > 0 && tokensIn + completion + reasoning === usage.total_tokens;
  return { tokensIn, tokensOut: excluded ? completion + reasoning : completion };
}

/**
 * A specific `code` (`context_length_exceeded`) beats `type`; numeric codes (Mistral's `"1300"`)
 * and category codes ending in `_error` (DeepSeek's `invalid_request_error`) say less than `type`.
 */
function errorType(code: unknown, type: unknown): string {
  if (typeof code === "string" && code !== "" && !/^\d+$|_error$/.test(code)) return code;
  if (typeof type === "string" && type !== "") return type;
  return typeof code === "number" || (typeof code === "string" && code !== "")
    ? String(code)
    : "unknown";
}

/**
 * Reads the error shapes OpenAI-compatible APIs use: `{ error: { message, type, code } }`
 * (OpenAI, Groq, DeepSeek, OpenRouter with a numeric code), `{ code, error: "text" }` (xAI) and
 * `{ object: "error", message, type, code }` (Mistral).
 */
export const readOpenAiError: ErrorShapeReader = (json) => {
  if (!isRecord(json)) return undefined;
  const nested = json.error;
  const holder = isRecord(nested) ? nested : json;
  const message =
    typeof nested === "string"
      ? nested
      : isRecord(nested) || typeof json.message === "string" || json.object === "error"
        ? messageText(holder.message)
        : undefined;
  return message === undefined ? undefined : { type: errorType(holder.code, holder.type), message };
};

/** How one OpenAI-compatible provider differs from the others. */
export interface OpenAiCompatibleOptions {
  /** The AI Gateway provider slug, e.g. `groq` or `custom-acme`. */
  readonly slug: string;
  readonly displayName: string;
  /** The real upstream base URL, ending in `/`. */
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
 *   slug: "custom-acme", displayName: "Acme", chatPath: "chat/completions",
 * });
 */
export function createOpenAiCompatibleAdapter(options: OpenAiCompatibleOptions): ProviderAdapter {
  const provider = { slug: options.slug, displayName: options.displayName };
  return {
    ...provider,
    format: "openai",
    endpoint: () => options.chatPath,
    authHeaders: (key) => ({ authorization: `Bearer ${key}` }),
    requestBody: (model: string, request: ChatRequest) =>
      withoutUndefined({
        model,
        messages: request.messages.map(({ role, content }) => ({ role, content })),
        [options.maxTokensField ?? "max_tokens"]: request.maxTokens,
        temperature: request.temperature,
        top_p: request.topP,
        stop: request.stop?.length ? [...request.stop] : undefined,
        stream: request.stream || undefined,
        stream_options:
          request.stream && options.sendsStreamUsageOption !== false
            ? { include_usage: true }
            : undefined,
      }),
    parseResponse(body: unknown, requestedModel?: string): ChatResult {
      const json = readResponseJson(provider, body);
      const embeddedError = readOpenAiError(json);
      if (embeddedError !== undefined) {
        throw invalidResponse(provider, `an error instead of an answer: ${embeddedError.message}`);
      }
      const choice = at(json, "choices", 0);
      const message = at(choice, "message");
      if (!isRecord(message)) throw invalidResponse(provider, "a body without choices[0].message");
      return {
        text: asString(message.content) ?? asString(message.refusal) ?? "",
        provider: options.slug,
        model: asString(json.model) ?? requestedModel ?? "",
        usage: readOpenAiUsage(json.usage) ?? { tokensIn: 0, tokensOut: 0 },
        finishReason: openAiFinishReason(asString(at(choice, "finish_reason"))),
      };
    },
    parseError: (status, body) => readErrorBody(provider, status, body, readOpenAiError),
  };
}

/** OpenAI: `https://api.openai.com/v1/chat/completions`, `authorization: Bearer <key>`. */
export const openAiProvider = createOpenAiCompatibleAdapter({
  slug: "openai",
  displayName: "OpenAI",
  chatPath: "chat/completions",
  maxTokensField: "max_completion_tokens",
});

/** Groq: `https://api.groq.com/openai/v1/chat/completions`; streams carry `x_groq.usage`. */
export const groqProvider = createOpenAiCompatibleAdapter({
  slug: "groq",
  displayName: "Groq",
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
  chatPath: "v1/chat/completions",
  sendsStreamUsageOption: false,
});

/** DeepSeek: `https://api.deepseek.com/chat/completions`. */
export const deepSeekProvider = createOpenAiCompatibleAdapter({
  slug: "deepseek",
  displayName: "DeepSeek",
  chatPath: "chat/completions",
});

/** xAI Grok: `https://api.x.ai/v1/chat/completions`; errors are `{ code, error: "text" }`. */
export const grokProvider = createOpenAiCompatibleAdapter({
  slug: "grok",
  displayName: "xAI Grok",
  chatPath: "v1/chat/completions",
});

/** OpenRouter: `https://openrouter.ai/api/v1/chat/completions`; errors carry numeric codes. */
export const openRouterProvider = createOpenAiCompatibleAdapter({
  slug: "openrouter",
  displayName: "OpenRouter",
  chatPath: "v1/chat/completions",
});

/**
 * An OpenAI-compatible adapter for a custom provider (its upstream: `upstreams.ts`). The caller
 * checks the slug against `customProviderPattern` first.
 */
export function createCustomProvider(slug: string): ProviderAdapter {
  return createOpenAiCompatibleAdapter({
    slug,
    displayName: `${slug.slice(7)} (custom provider)`,
    chatPath: "chat/completions",
  });
}

/**
 * The gateway's own OpenAI-shaped endpoint (`compat/chat/completions`), which the client uses for
 * dynamic routes (`model: "dynamic/<route>"`). Sends `max_tokens`, which every provider accepts.
 */
export const compatAdapter = createOpenAiCompatibleAdapter({
  slug: "compat",
  displayName: "The gateway's compat endpoint",
  chatPath: "compat/chat/completions",
});

const bySlug: Readonly<Record<string, ProviderAdapter>> = {
  openai: openAiProvider,
  groq: groqProvider,
  mistral: mistralProvider,
  deepseek: deepSeekProvider,
  grok: grokProvider,
  openrouter: openRouterProvider,
  compat: compatAdapter,
};

/** The adapter of an OpenAI-compatible slug, `compat`, or a `custom-<slug>` (see `catalog.ts`). */
export function adapterFor(slug: string): ProviderAdapter {
  return (Object.hasOwn(bySlug, slug) ? bySlug[slug] : undefined) ?? createCustomProvider(slug);
}
