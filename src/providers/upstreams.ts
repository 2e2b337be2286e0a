/**
 * @module
 * Each provider's real upstream base URL, what AI Gateway forwards a step to, ending in `/`. The
 * client never sends to a provider itself (the gateway does), so these live apart from the
 * adapters: a client bundle carries no URL it has no use for. The emulator reads them to shape
 * the paths it forwards.
 */

/** Base URLs by provider slug (and `compat`, the gateway's own OpenAI-shaped endpoint). */
const upstreamBaseUrls: Readonly<Record<string, string>> = {
  openai: "https://api.openai.com/v1/",
  groq: "https://api.groq.com/openai/v1/",
  mistral: "https://api.mistral.ai/",
  deepseek: "https://api.deepseek.com/",
  grok: "https://api.x.ai/",
  openrouter: "https://openrouter.ai/api/",
  anthropic: "https://api.anthropic.com/",
  "google-ai-studio": "https://generativelanguage.googleapis.com/",
  // The account-less stand-in for `…/client/v4/accounts/{account}/ai/run/`: through AI Gateway
  // the account comes from the gateway URL.
  "workers-ai": "https://api.cloudflare.com/client/v4/ai/run/",
  compat: "https://gateway.ai.cloudflare.com/",
};

/**
 * The upstream base URL of a provider slug. A `custom-<slug>` provider's upstream is its own
 * `base_url`, which Stepwise does not know: a placeholder that never resolves (the emulator
 * overrides it).
 */
export function upstreamBaseUrlOf(slug: string): string {
  return Object.hasOwn(upstreamBaseUrls, slug)
    ? upstreamBaseUrls[slug]!
    : "https://custom.invalid/";
}
