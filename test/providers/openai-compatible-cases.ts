/**
 * @module
 * What each OpenAI-compatible provider's fixtures and requests look like, for
 * `openai-compatible.test.ts`.
 */

import { expect } from "vitest";
import type { ProviderErrorInfo, TokenUsage } from "../../src/providers/types.ts";

/** Expected request and parse results for one provider. */
export interface OpenAiStyleCase {
  readonly provider: string;
  readonly upstreamBaseUrl: string;
  readonly endpoint: string;
  readonly model: string;
  readonly maxTokensField: "max_tokens" | "max_completion_tokens";
  readonly sendsStreamOptions: boolean;
  readonly answeredModel: string;
  readonly usage: TokenUsage;
  readonly errors: {
    readonly rateLimit: Omit<ProviderErrorInfo, "status">;
    readonly contextLength: Omit<ProviderErrorInfo, "status">;
    readonly badKey: Omit<ProviderErrorInfo, "status">;
  };
}

/** One entry per built-in OpenAI-compatible provider. */
export const openAiStyleCases: readonly OpenAiStyleCase[] = [
  {
    provider: "openai",
    upstreamBaseUrl: "https://api.openai.com/v1/",
    endpoint: "chat/completions",
    model: "gpt-4o-mini",
    maxTokensField: "max_completion_tokens",
    sendsStreamOptions: true,
    answeredModel: "gpt-4o-mini-2024-07-18",
    usage: { tokensIn: 38, tokensOut: 11 },
    errors: {
      rateLimit: {
        type: "rate_limit_exceeded",
        message: expect.stringContaining("Rate limit reached for gpt-4o-mini"),
      },
      contextLength: {
        type: "context_length_exceeded",
        message: expect.stringContaining("maximum context length is 128000"),
      },
      badKey: {
        type: "invalid_api_key",
        message: expect.stringContaining("Incorrect API key provided"),
      },
    },
  },
  {
    provider: "groq",
    upstreamBaseUrl: "https://api.groq.com/openai/v1/",
    endpoint: "chat/completions",
    model: "llama-3.3-70b-versatile",
    maxTokensField: "max_completion_tokens",
    sendsStreamOptions: true,
    answeredModel: "llama-3.3-70b-versatile",
    usage: { tokensIn: 52, tokensOut: 11 },
    errors: {
      rateLimit: {
        type: "rate_limit_exceeded",
        message: expect.stringContaining("tokens per minute (TPM)"),
      },
      contextLength: {
        type: "context_length_exceeded",
        message: "Please reduce the length of the messages or completion.",
      },
      badKey: { type: "invalid_api_key", message: "Invalid API Key" },
    },
  },
  {
    provider: "mistral",
    upstreamBaseUrl: "https://api.mistral.ai/",
    endpoint: "v1/chat/completions",
    model: "mistral-small-latest",
    maxTokensField: "max_tokens",
    sendsStreamOptions: false,
    answeredModel: "mistral-small-latest",
    usage: { tokensIn: 41, tokensOut: 12 },
    errors: {
      rateLimit: { type: "rate_limited", message: "Requests rate limit exceeded" },
      contextLength: {
        type: "invalid_request_message_error",
        message: expect.stringContaining("32768 maximum context length"),
      },
      badKey: { type: "unknown", message: "Unauthorized" },
    },
  },
  {
    provider: "deepseek",
    upstreamBaseUrl: "https://api.deepseek.com/",
    endpoint: "chat/completions",
    model: "deepseek-chat",
    maxTokensField: "max_tokens",
    sendsStreamOptions: true,
    answeredModel: "deepseek-chat",
    usage: { tokensIn: 36, tokensOut: 10 },
    errors: {
      rateLimit: { type: "rate_limit_exceeded", message: "Rate Limit Reached" },
      contextLength: {
        type: "invalid_request_error",
        message: expect.stringContaining("maximum context length is 65536"),
      },
      badKey: {
        type: "authentication_error",
        message: expect.stringContaining("Authentication Fails"),
      },
    },
  },
  {
    provider: "grok",
    upstreamBaseUrl: "https://api.x.ai/",
    endpoint: "v1/chat/completions",
    model: "grok-3-mini",
    maxTokensField: "max_tokens",
    sendsStreamOptions: true,
    answeredModel: "grok-3-mini",
    // xAI leaves the 229 reasoning tokens out of completion_tokens; they are billed as output.
    usage: { tokensIn: 33, tokensOut: 240 },
    errors: {
      rateLimit: {
        type: "Some resource has been exhausted",
        message: expect.stringContaining("rate limit of 480"),
      },
      contextLength: {
        type: "Client specified an invalid argument",
        message: expect.stringContaining("maximum prompt length is 131072"),
      },
      // xAI really answers a bad key with HTTP 400 and this body.
      badKey: {
        type: "Client specified an invalid argument",
        message: expect.stringContaining("Incorrect API key"),
      },
    },
  },
  {
    provider: "openrouter",
    upstreamBaseUrl: "https://openrouter.ai/api/",
    endpoint: "v1/chat/completions",
    model: "google/gemini-2.5-flash",
    maxTokensField: "max_tokens",
    sendsStreamOptions: true,
    answeredModel: "google/gemini-2.5-flash",
    usage: { tokensIn: 30, tokensOut: 9 },
    errors: {
      rateLimit: { type: "429", message: expect.stringContaining("free-models-per-day") },
      contextLength: {
        type: "400",
        message: expect.stringContaining("maximum context length is 131072"),
      },
      badKey: { type: "401", message: "No auth credentials found" },
    },
  },
];
