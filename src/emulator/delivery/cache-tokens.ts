/**
 * @module
 * Prompt-cache tokens of an answer, for custom costs with cache rates (changelog 2026-09-09,
 * configuration/custom-costs.mdx). Providers report them in their own fields: OpenAI (and the
 * OpenAI-compatible providers) as `usage.prompt_tokens_details.cached_tokens`, within
 * `prompt_tokens`; Anthropic as `usage.cache_read_input_tokens` and
 * `usage.cache_creation_input_tokens`, beside `input_tokens` (the adapter adds them to the tokens
 * in, so every count here is within the tokens in); Google as
 * `usageMetadata.cachedContentTokenCount`, within `promptTokenCount`. Read only when the request's
 * custom cost has a cache rate, so other requests parse nothing more.
 */
import { getProvider, isKnownProvider } from "../../providers/index.ts";
import type { CustomCost } from "../request/directives.ts";

/** Cache tokens of an answer (each counted within its tokens in). */
export interface CacheTokens {
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
}

/** Whether a custom cost prices cache tokens ("Cache-token pricing activates when either cache rate is present"). */
export function pricesCacheTokens(customCost: CustomCost | undefined): boolean {
  return (
    customCost !== undefined &&
    "per_token_in" in customCost &&
    (customCost.per_cache_read_token !== undefined ||
      customCost.per_cache_write_token !== undefined)
  );
}

const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;

const field = (value: unknown, ...path: string[]): unknown => {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
};

/**
 * The cache tokens a provider's answer (or one of its stream events) reports, parsed JSON;
 * undefined when it reports none.
 */
export function cacheTokensOf(provider: string, json: unknown): CacheTokens | undefined {
  switch (isKnownProvider(provider) ? getProvider(provider).format : undefined) {
    case "anthropic": {
      // Whole answers carry `usage`; stream events carry it in `message` (message_start) or alone.
      const usage = field(json, "usage") ?? field(json, "message", "usage");
      if (usage === undefined) return undefined;
      const read = field(usage, "cache_read_input_tokens");
      const write = field(usage, "cache_creation_input_tokens");
      if (read === undefined && write === undefined) return undefined;
      return { cacheReadTokens: count(read), cacheWriteTokens: count(write) };
    }
    case "google": {
      const cached = field(json, "usageMetadata", "cachedContentTokenCount");
      return cached === undefined
        ? undefined
        : { cacheReadTokens: count(cached), cacheWriteTokens: 0 };
    }
    case "openai":
    case "workers-ai": {
      const usage = field(json, "usage") ?? field(json, "result", "usage");
      const cached = field(usage, "prompt_tokens_details", "cached_tokens");
      return cached === undefined
        ? undefined
        : { cacheReadTokens: count(cached), cacheWriteTokens: 0 };
    }
    default:
      return undefined;
  }
}

/** The cache tokens of a whole body (bytes or text); undefined when it is not JSON or has none. */
export function cacheTokensOfBody(
  provider: string,
  body: Buffer | string,
): CacheTokens | undefined {
  try {
    return cacheTokensOf(
      provider,
      JSON.parse(typeof body === "string" ? body : body.toString("utf8")),
    );
  } catch {
    return undefined;
  }
}
