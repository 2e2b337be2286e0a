/**
 * @module
 * OpenAI Chat Completions. Sends `max_completion_tokens`, the only limit field OpenAI's reasoning
 * models accept.
 */

import { createOpenAiCompatibleAdapter } from "./openai-compatible.ts";
import type { ProviderAdapter } from "./types.ts";

/**
 * OpenAI: OpenAI-compatible chat at `https://api.openai.com/v1/chat/completions`,
 * authenticated with `authorization: Bearer <key>`.
 */
export const openAiProvider: ProviderAdapter = createOpenAiCompatibleAdapter({
  slug: "openai",
  displayName: "OpenAI",
  upstreamBaseUrl: "https://api.openai.com/v1/",
  chatPath: "chat/completions",
  maxTokensField: "max_completion_tokens",
});
