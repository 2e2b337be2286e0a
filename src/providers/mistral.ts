/**
 * @module
 * Mistral's chat API. Mistral rejects unknown fields with HTTP 422, so requests carry no
 * `stream_options` (usage comes in the last chunk anyway) and use `max_tokens`, never
 * `max_completion_tokens`. Error bodies are `{ object: "error", message, type, code }`.
 */

import { createOpenAiCompatibleAdapter } from "./openai-compatible.ts";
import type { ProviderAdapter } from "./types.ts";

/**
 * Mistral AI: OpenAI-compatible chat at `https://api.mistral.ai/v1/chat/completions`,
 * authenticated with `authorization: Bearer <key>`.
 */
export const mistralProvider: ProviderAdapter = createOpenAiCompatibleAdapter({
  slug: "mistral",
  displayName: "Mistral AI",
  upstreamBaseUrl: "https://api.mistral.ai/",
  chatPath: "v1/chat/completions",
  sendsStreamUsageOption: false,
});
