/**
 * @module
 * The client's one boundary for code loaded on demand: the only module of `src/client` with a
 * dynamic `import()` (the import-graph test holds it). Behind it is what an app that only chats
 * never runs, so its bundler can leave it out of the code loaded before the first call:
 *
 * - the stream reader (`stream-reader.ts`, with the SSE parser and each format's stream reader),
 *   loaded by the first `client.stream`;
 * - each provider's wire format (`providers/catalog.ts` loads one per format), loaded when the
 *   client is created for the formats its routes use, and by a call that needs another one
 *   (`compat` for a dynamic route).
 *
 * Everything else the client needs is imported statically: loading it on first use would save
 * an app nothing it does not run anyway.
 */

import { loadProvider } from "../../providers/catalog.ts";
import type { ProviderAdapter } from "../../providers/types.ts";

type StreamReader = typeof import("./stream-reader.ts");

let streamReader: Promise<StreamReader> | undefined;

/** The stream reader, loaded once, by the first stream. */
export function loadStreamReader(): Promise<StreamReader> {
  streamReader ??= import("./stream-reader.ts");
  return streamReader;
}

/**
 * The adapter of a provider slug (or `compat`), loaded with its format's code and kept in
 * `adapters` (a client's), so that its calls find it there without waiting.
 * @throws UnknownProviderError for a slug that is no provider.
 */
export async function loadAdapter(
  adapters: Map<string, ProviderAdapter>,
  slug: string,
): Promise<ProviderAdapter> {
  const adapter = await loadProvider(slug);
  adapters.set(slug, adapter);
  return adapter;
}
