/**
 * @module
 * Provider adapters: for each AI Gateway provider slug, the endpoint path, auth headers, request
 * body, and response and error readers; `createStreamParser` reads its streams. Run-time
 * dependency free (fetch-platform types only), so the client, the Worker and browsers can import
 * it.
 * @example
 * const anthropic = getProvider("anthropic");
 * const body = anthropic.requestBody("claude-sonnet-4-5", { messages });
 */

import { getProvider } from "./registry.ts";
import { streamParserFor } from "./streams.ts";
import type { StreamParser } from "./types.ts";

export {
  customProviderPattern,
  isKnownProvider,
  loadProvider,
  providerSlugs,
} from "./catalog.ts";
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
  type OpenAiCompatibleOptions,
} from "./openai.ts";
export { getProvider } from "./registry.ts";
export { createSseDecoder, formatSseEvent, parseSseStream } from "./sse.ts";
export { invalidStreamEventType } from "./streams.ts";
export type * from "./types.ts";
export { upstreamBaseUrlOf } from "./upstreams.ts";

/**
 * A fresh stream parser for one streamed response of a provider: server-sent events in,
 * normalised deltas out (text, usage, finish, done, error).
 * @throws UnknownProviderError as {@link getProvider} does.
 * @example
 * const parse = createStreamParser("anthropic");
 * for await (const event of parseSseStream(response.body)) deltas.push(...parse(event));
 */
export function createStreamParser(slug: string): StreamParser {
  return streamParserFor(getProvider(slug));
}
