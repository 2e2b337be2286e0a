/**
 * @module
 * The error for a provider slug that is no provider, naming the slug the caller probably meant
 * (`claude` → `anthropic`, `Workers AI` → `workers-ai`).
 */

import { StepwiseError } from "../errors/index.ts";

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

/** What the error needs to know of the catalog (passed in, so the catalog stays a leaf). */
export interface ProviderCatalog {
  readonly slugs: readonly string[];
  isKnown(slug: string): boolean;
}

/** The error for a slug that is no provider, naming the slug the caller probably meant. */
export function unknownProviderError(slug: string, catalog: ProviderCatalog): UnknownProviderError {
  const normalised = String(slug)
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");
  const suggestion = catalog.isKnown(normalised)
    ? normalised
    : Object.hasOwn(commonNames, normalised)
      ? commonNames[normalised]
      : undefined;
  return new UnknownProviderError({ slug, knownSlugs: catalog.slugs, suggestion });
}
