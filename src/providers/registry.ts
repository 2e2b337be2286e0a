/**
 * @module
 * The provider registry: every adapter at hand, by AI Gateway provider slug (built-in, or
 * `custom-<slug>`). The emulator, the Worker and the route compilers use it; the client loads
 * adapters by format instead (`catalog.ts`).
 */

import { anthropicProvider } from "./anthropic.ts";
import { customProviderPattern, isKnownProvider, providerSlugs } from "./catalog.ts";
import { googleAiStudioProvider } from "./google-ai-studio.ts";
import {
  createCustomProvider,
  deepSeekProvider,
  grokProvider,
  groqProvider,
  mistralProvider,
  openAiProvider,
  openRouterProvider,
} from "./openai.ts";
import type { ProviderAdapter } from "./types.ts";
import { unknownProviderError } from "./unknown-provider.ts";
import { workersAiProvider } from "./workers-ai.ts";

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
  throw unknownProviderError(slug, { slugs: providerSlugs, isKnown: isKnownProvider });
}
