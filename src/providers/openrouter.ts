/**
 * @module
 * OpenRouter. Streams carry `: OPENROUTER PROCESSING` comments and may end with a
 * mid-stream `{ error: { code, message } }` chunk.
 */

import { createOpenAiCompatibleAdapter } from "./openai-compatible.ts";
import type { ProviderAdapter } from "./types.ts";

/**
 * OpenRouter: OpenAI-compatible chat at `https://openrouter.ai/api/v1/chat/completions`,
 * authenticated with `authorization: Bearer <key>`.
 */
export const openRouterProvider: ProviderAdapter = createOpenAiCompatibleAdapter({
  slug: "openrouter",
  displayName: "OpenRouter",
  upstreamBaseUrl: "https://openrouter.ai/api/",
  chatPath: "v1/chat/completions",
});
