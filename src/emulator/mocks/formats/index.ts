/**
 * @module
 * The mock wire format for a provider slug, chosen by the adapter's `format`.
 */

import { getProvider } from "../../../providers/index.ts";
import { anthropicFormat } from "./anthropic.ts";
import { googleFormat } from "./google.ts";
import { createOpenAiFormat } from "./openai.ts";
import type { MockWireFormat } from "./types.ts";
import { workersAiFormat } from "./workers-ai.ts";

export type * from "./types.ts";

/**
 * The wire format a provider's mock speaks.
 * @throws UnknownProviderError (`unknown_provider`) for a slug that is not a provider.
 */
export function mockFormatFor(slug: string): MockWireFormat {
  const format = getProvider(slug).format;
  switch (format) {
    case "anthropic":
      return anthropicFormat;
    case "workers-ai":
      return workersAiFormat;
    case "google":
      return googleFormat;
    case "openai":
      return createOpenAiFormat(slug);
  }
}
