/**
 * @module
 * Provider adapters: for each AI Gateway provider slug, the endpoint path, auth headers, request
 * body and response, error and stream readers. Run-time dependency free (fetch-platform types
 * only), so the client, the Worker and browsers can import it.
 * @example
 * const anthropic = getProvider("anthropic");
 * const body = anthropic.requestBody("claude-sonnet-4-5", { messages });
 */

import { anthropicProvider } from "./anthropic.ts";
import { UnknownProviderError } from "./errors.ts";
import { googleAiStudioProvider } from "./google-ai-studio.ts";
import { ownEntry } from "./json.ts";
import {
  createCustomProvider,
  customProviderPattern,
  deepSeekProvider,
  grokProvider,
  groqProvider,
  mistralProvider,
  openAiProvider,
  openRouterProvider,
} from "./openai.ts";
import type { ProviderAdapter } from "./types.ts";
import { workersAiProvider } from "./workers-ai.ts";

export { computeCost, type ModelPrice, type PriceTable } from "./cost.ts";
export {
  ProviderResponseError,
  type ProviderResponseErrorOptions,
  UnknownProviderError,
  type UnknownProviderErrorOptions,
} from "./errors.ts";
export {
  createCustomProvider,
  createOpenAiCompatibleAdapter,
  customProviderPattern,
  type OpenAiCompatibleOptions,
} from "./openai.ts";
export { createSseDecoder, formatSseEvent, parseSseStream } from "./sse.ts";
export type * from "./types.ts";

const builtInProviders: readonly ProviderAdapter[] = [
  openAiProvider,
  anthropicProvider,
  workersAiProvider,
  googleAiStudioProvider,
  groqProvider,
  mistralProvider,
  deepSeekProvider,
  grokProvider,
  openRouterProvider,
];

const bySlug: ReadonlyMap<string, ProviderAdapter> = new Map(
  builtInProviders.map((adapter) => [adapter.slug, adapter]),
);

/** The built-in provider slugs. `custom-<slug>` providers are accepted as well. */
export const providerSlugs: readonly string[] = Object.freeze(
  builtInProviders.map((adapter) => adapter.slug),
);

/** Names people write for a provider, mapped to its AI Gateway slug. */
const commonNames: Readonly<Record<string, string>> = {
  xai: "grok",
  "x-ai": "grok",
  claude: "anthropic",
  google: "google-ai-studio",
  gemini: "google-ai-studio",
  "google-ai": "google-ai-studio",
  workersai: "workers-ai",
  cloudflare: "workers-ai",
  "open-ai": "openai",
  "open-router": "openrouter",
};

function suggestionFor(slug: string): string | undefined {
  const normalised = slug
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");
  if (bySlug.has(normalised) || customProviderPattern.test(normalised)) return normalised;
  return ownEntry(commonNames, normalised);
}

/** True for a built-in slug or a valid `custom-<slug>`: exactly the slugs `getProvider` accepts. */
export function isKnownProvider(slug: string): boolean {
  return bySlug.has(slug) || customProviderPattern.test(slug);
}

/**
 * The adapter for an AI Gateway provider slug. `custom-<slug>` gives an OpenAI-compatible
 * adapter whose upstream is a placeholder (the gateway or the emulator knows the real one).
 * @throws UnknownProviderError (`unknown_provider`) for any other slug; the message lists the
 * known slugs.
 */
export function getProvider(slug: string): ProviderAdapter {
  const adapter = bySlug.get(slug);
  if (adapter !== undefined) return adapter;
  if (customProviderPattern.test(slug)) return createCustomProvider(slug);
  const suggestion = suggestionFor(slug);
  throw new UnknownProviderError({
    slug,
    knownSlugs: providerSlugs,
    ...(suggestion === undefined ? {} : { suggestion }),
  });
}
