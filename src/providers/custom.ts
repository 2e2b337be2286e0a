/**
 * @module
 * `custom-<slug>` providers: AI Gateway custom providers, assumed OpenAI-compatible.
 */

import { createOpenAiCompatibleAdapter } from "./openai-compatible.ts";
import type { ProviderAdapter } from "./types.ts";

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
