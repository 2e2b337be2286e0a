/**
 * @module
 * The provider slugs a config may name: the built-in ones and `custom-<slug>`. Apart from the zod
 * schemas (`field-schemas.ts`) so the companion Worker's view reader (`worker-view-read.ts`) checks
 * them without zod.
 */

/** Provider slugs this schema accepts besides `custom-<slug>`. Kept in sync with the registry by a test. */
export const builtInProviderSlugs = [
  "openai",
  "anthropic",
  "workers-ai",
  "groq",
  "mistral",
  "deepseek",
  "grok",
  "google-ai-studio",
  "openrouter",
] as const;

/** `custom-<slug>`: an OpenAI-compatible custom provider. */
export const customProviderSlugPattern = /^custom-[a-z0-9][a-z0-9-]{0,62}$/;

/** True for a slug the config accepts. */
export function isConfigProviderSlug(slug: string): boolean {
  return (
    (builtInProviderSlugs as readonly string[]).includes(slug) ||
    customProviderSlugPattern.test(slug)
  );
}
