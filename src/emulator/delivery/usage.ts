/**
 * @module
 * Tokens and cost of a response, read with the provider adapters: from a whole body, or from a
 * stream's events as they pass through the gateway.
 */
import {
  computeCost,
  createStreamParser,
  getProvider,
  isKnownProvider,
  type PriceTable,
  type StreamDelta,
  type StreamParser,
} from "../../providers/index.ts";
import type { CustomCost } from "../request/directives.ts";
import type { ResponseUsage } from "../step/step-target.ts";
import { type CacheTokens, cacheTokensOf, pricesCacheTokens } from "./cache-tokens.ts";

/**
 * Tokens from a whole response body as the client gets it: the provider's answer, or (compat and
 * dynamic-route calls to a provider with its own format) that answer converted to OpenAI's shape.
 * Nulls when the body is neither.
 */
export function usageFromBody(provider: string, model: string, body: Buffer): ResponseUsage {
  if (!isKnownProvider(provider)) return { tokensIn: null, tokensOut: null };
  const text = body.toString("utf8");
  const adapters = [...new Set([getProvider(provider), getProvider("openai")])];
  for (const adapter of adapters) {
    try {
      const result = adapter.parseResponse(text, model);
      return { tokensIn: result.usage.tokensIn, tokensOut: result.usage.tokensOut };
    } catch {
      // Not this shape; a converted compat answer is OpenAI's.
    }
  }
  return { tokensIn: null, tokensOut: null };
}

/** Collects usage (and whether the end marker came) from a stream's deltas. */
export class StreamUsage implements ResponseUsage {
  tokensIn: number | null = null;
  tokensOut: number | null = null;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** The provider signalled the end of the stream (`[DONE]`, `message_stop`...). */
  sawEnd = false;
  readonly #parser: StreamParser | undefined;
  readonly #provider: string;
  readonly #readsCacheTokens: boolean;

  /** Whether the provider's stream format is known (so `sawEnd` means something). */
  get parses(): boolean {
    return this.#parser !== undefined;
  }

  /** `readsCacheTokens`: also read prompt-cache tokens (a custom cost prices them). */
  constructor(provider: string, readsCacheTokens = false) {
    this.#parser = isKnownProvider(provider) ? createStreamParser(provider) : undefined;
    this.#provider = provider;
    this.#readsCacheTokens = readsCacheTokens;
  }

  /** Feeds one SSE event; returns its deltas (empty for unknown providers or bad events). */
  feed(event: { event?: string; data: string }): StreamDelta[] {
    if (this.#parser === undefined) return [];
    let deltas: StreamDelta[];
    try {
      deltas = this.#parser(event);
    } catch {
      return [];
    }
    for (const delta of deltas) {
      if (delta.type === "usage") {
        if (delta.usage.tokensIn !== undefined) this.tokensIn = delta.usage.tokensIn;
        if (delta.usage.tokensOut !== undefined) this.tokensOut = delta.usage.tokensOut;
        if (this.#readsCacheTokens) this.#readCacheTokens(event.data);
      } else if (delta.type === "done") {
        this.sawEnd = true;
      }
    }
    return deltas;
  }

  #readCacheTokens(data: string): void {
    let tokens: CacheTokens | undefined;
    try {
      tokens = cacheTokensOf(this.#provider, JSON.parse(data));
    } catch {
      return;
    }
    if (tokens === undefined) return;
    this.cacheReadTokens = tokens.cacheReadTokens;
    this.cacheWriteTokens = tokens.cacheWriteTokens;
  }
}

/** The cost of a response: the custom cost when sent, else the price table's; undefined if neither. */
export function costOf(
  prices: PriceTable,
  provider: string,
  model: string,
  usage: ResponseUsage,
  customCost: CustomCost | undefined,
): number | undefined {
  if (customCost !== undefined) {
    if ("total_cost" in customCost) return customCost.total_cost;
    const tokensIn = usage.tokensIn ?? 0;
    const tokensOut = usage.tokensOut ?? 0;
    if (!pricesCacheTokens(customCost)) {
      return tokensIn * customCost.per_token_in + tokensOut * customCost.per_token_out;
    }
    // custom-costs.mdx: cache tokens counted within the input are subtracted before
    // per_token_in applies ("1,000 - 600 - 200"), then each rate applies to its own count.
    const read = usage.cacheReadTokens ?? 0;
    const write = usage.cacheWriteTokens ?? 0;
    const fresh = Math.max(0, tokensIn - read - write);
    return (
      fresh * customCost.per_token_in +
      read * (customCost.per_cache_read_token ?? customCost.per_token_in) +
      write * (customCost.per_cache_write_token ?? customCost.per_token_in) +
      tokensOut * customCost.per_token_out
    );
  }
  if (usage.tokensIn === null && usage.tokensOut === null) return undefined;
  return computeCost(prices, provider, model, {
    tokensIn: usage.tokensIn ?? 0,
    tokensOut: usage.tokensOut ?? 0,
  });
}
