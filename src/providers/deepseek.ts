/**
 * @module
 * DeepSeek's OpenAI-compatible API.
 */

import { createOpenAiCompatibleAdapter } from "./openai-compatible.ts";
import type { ProviderAdapter } from "./types.ts";

/**
 * DeepSeek: OpenAI-compatible chat at `https://api.deepseek.com/chat/completions`,
 * authenticated with `authorization: Bearer <key>`.
 */
export const deepSeekProvider: ProviderAdapter = createOpenAiCompatibleAdapter({
  slug: "deepseek",
  displayName: "DeepSeek",
  upstreamBaseUrl: "https://api.deepseek.com/",
  chatPath: "chat/completions",
});
