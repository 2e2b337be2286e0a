/**
 * @module
 * Groq's OpenAI-compatible API. Streams also carry usage in `x_groq.usage`.
 */

import { createOpenAiCompatibleAdapter } from "./openai-compatible.ts";
import type { ProviderAdapter } from "./types.ts";

/**
 * Groq: OpenAI-compatible chat at `https://api.groq.com/openai/v1/chat/completions`,
 * authenticated with `authorization: Bearer <key>`.
 */
export const groqProvider: ProviderAdapter = createOpenAiCompatibleAdapter({
  slug: "groq",
  displayName: "Groq",
  upstreamBaseUrl: "https://api.groq.com/openai/v1/",
  chatPath: "chat/completions",
  maxTokensField: "max_completion_tokens",
});
