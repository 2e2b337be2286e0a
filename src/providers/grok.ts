/**
 * @module
 * xAI (Grok), AI Gateway slug `grok`. Error bodies are `{ code, error: "text" }`.
 */

import { createOpenAiCompatibleAdapter } from "./openai-compatible.ts";
import type { ProviderAdapter } from "./types.ts";

/**
 * xAI Grok: OpenAI-compatible chat at `https://api.x.ai/v1/chat/completions`,
 * authenticated with `authorization: Bearer <key>`.
 */
export const grokProvider: ProviderAdapter = createOpenAiCompatibleAdapter({
  slug: "grok",
  displayName: "xAI Grok",
  upstreamBaseUrl: "https://api.x.ai/",
  chatPath: "v1/chat/completions",
});
