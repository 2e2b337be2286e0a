/**
 * @module
 * Which provider slugs exist and which wire format each speaks, without loading any adapter:
 * `isKnownProvider`, and `loadProvider`, which loads a provider's adapter with its format's
 * module (`unknown-provider.ts` has the error for a slug that is no provider). The client uses it so
 * that an app carries the code of the formats its routes use, loaded on first use; `getProvider`
 * (`registry.ts`) has every adapter at hand, for the emulator and the Worker.
 */

import type { ProviderAdapter, WireFormat } from "./types.ts";

/** Each built-in provider slug and its wire format, in the order error messages list them. */
const builtInFormats: Readonly<Record<string, WireFormat>> = {
  openai: "openai",
  anthropic: "anthropic",
  "workers-ai": "workers-ai",
  "google-ai-studio": "google",
  groq: "openai",
  mistral: "openai",
  deepseek: "openai",
  grok: "openai",
  openrouter: "openai",
};

/** The built-in provider slugs. `custom-<slug>` providers are accepted as well. */
export const providerSlugs: readonly string[] = Object.freeze(Object.keys(builtInFormats));

/** Custom provider slugs: `custom-` then lowercase letters, digits and hyphens (64 at most). */
export const customProviderPattern = /^custom-[a-z0-9][a-z0-9-]{0,62}$/;

/** The wire format of a slug (`custom-<slug>` speaks OpenAI's), or undefined when unknown. */
export function formatOf(slug: string): WireFormat | undefined {
  return Object.hasOwn(builtInFormats, slug)
    ? builtInFormats[slug]
    : customProviderPattern.test(slug)
      ? "openai"
      : undefined;
}

/** True for a built-in slug or a valid `custom-<slug>`: exactly the slugs `getProvider` accepts. */
export function isKnownProvider(slug: string): boolean {
  return formatOf(slug) !== undefined;
}

/** A format's module, as `loadProvider` loads it. */
interface FormatModule {
  adapterFor(slug: string): ProviderAdapter;
}

const formatModules: Record<WireFormat, () => Promise<FormatModule>> = {
  openai: () => import("./openai.ts"),
  anthropic: () => import("./anthropic.ts"),
  google: () => import("./google-ai-studio.ts"),
  "workers-ai": () => import("./workers-ai.ts"),
};

/**
 * The adapter for a provider slug (or `compat`, the gateway's OpenAI-shaped endpoint), loading
 * its format's module on first use.
 * @throws UnknownProviderError for a slug that is no provider.
 * @example const anthropic = await loadProvider("anthropic");
 */
export async function loadProvider(slug: string): Promise<ProviderAdapter> {
  const format = slug === "compat" ? "openai" : formatOf(slug);
  // The error and its suggestions load only for a slug that is no provider.
  if (format === undefined) {
    const { unknownProviderError } = await import("./unknown-provider.ts");
    throw unknownProviderError(slug, { slugs: providerSlugs, isKnown: isKnownProvider });
  }
  return (await formatModules[format]()).adapterFor(slug);
}
