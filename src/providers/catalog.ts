/**
 * @module
 * Which provider slugs exist and which wire format each speaks, without loading any adapter:
 * `isKnownProvider`, the error for an unknown slug (with the slug the caller probably meant), and
 * `loadProvider`, which loads a provider's adapter with its format's module. The client uses it so
 * that an app carries the code of the formats its routes use, loaded on first use; `getProvider`
 * (`registry.ts`) has every adapter at hand, for the emulator and the Worker.
 */

import { StepwiseError } from "../errors/index.ts";
import type { ProviderAdapter, WireFormat } from "./types.ts";

/** Options for {@link UnknownProviderError}. */
export interface UnknownProviderErrorOptions {
  /** The slug that was asked for. */
  readonly slug: string;
  /** The built-in slugs, listed in the message. */
  readonly knownSlugs: readonly string[];
  /** A built-in slug the caller probably meant, if one is close. */
  readonly suggestion?: string;
}

/** A provider slug that is neither built in nor a valid `custom-<slug>`. Code `unknown_provider`. */
export class UnknownProviderError extends StepwiseError {
  static override readonly kind: string = "stepwise.UnknownProviderError";
  declare readonly slug: string;

  constructor({ slug, knownSlugs, suggestion }: UnknownProviderErrorOptions) {
    const hint = suggestion === undefined ? "" : ` Did you mean "${suggestion}"?`;
    super({
      code: "unknown_provider",
      message:
        `Unknown provider "${slug}".${hint} Known providers: ${knownSlugs.join(", ")}, and ` +
        "custom-<slug> for custom OpenAI-compatible ones (e.g. custom-acme).",
    });
    this.name = "UnknownProviderError";
    this.slug = slug;
  }
}

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

/** The error for a slug that is no provider, naming the slug the caller probably meant. */
export function unknownProviderError(slug: string): UnknownProviderError {
  const normalised = String(slug)
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");
  const suggestion = isKnownProvider(normalised)
    ? normalised
    : Object.hasOwn(commonNames, normalised)
      ? commonNames[normalised]
      : undefined;
  return new UnknownProviderError({ slug, knownSlugs: providerSlugs, suggestion });
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
  if (format === undefined) throw unknownProviderError(slug);
  return (await formatModules[format]()).adapterFor(slug);
}
