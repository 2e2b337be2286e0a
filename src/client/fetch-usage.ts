/**
 * @module
 * Reads token usage from a copy of a response that `client.fetch` passed on: the JSON body, or a
 * stream's events (which must end with the provider's end marker). Never throws; what it cannot
 * read stays null.
 */

import { parseSseStream } from "../providers/index.ts";
import type { ProviderAdapter, TokenUsage } from "../providers/types.ts";

/** What the copy showed. */
export interface UsageReading {
  readonly usage: TokenUsage | null;
  readonly streamed: boolean;
  /** `incomplete_stream` or `stream_error` when a stream failed; null otherwise. */
  readonly errorCode: string | null;
}

/** Reads usage from `copy` with `adapter` (usage stays null without one). */
export async function readUsage(
  copy: Response,
  adapter: ProviderAdapter | undefined,
): Promise<UsageReading> {
  const streamed = (copy.headers.get("content-type") ?? "").includes("text/event-stream");
  try {
    if (streamed) return await readStreamUsage(copy, adapter);
    const text = await copy.text();
    if (adapter === undefined) return { usage: null, streamed, errorCode: null };
    try {
      return { usage: adapter.parseResponse(text).usage, streamed, errorCode: null };
    } catch {
      return { usage: null, streamed, errorCode: null };
    }
  } catch {
    return { usage: null, streamed, errorCode: streamed ? "incomplete_stream" : "network_error" };
  }
}

async function readStreamUsage(
  copy: Response,
  adapter: ProviderAdapter | undefined,
): Promise<UsageReading> {
  if (copy.body === null) return { usage: null, streamed: true, errorCode: "incomplete_stream" };
  const parser = adapter?.createStreamParser();
  let tokensIn: number | undefined;
  let tokensOut: number | undefined;
  let done = parser === undefined;
  let errorCode: string | null = null;
  for await (const event of parseSseStream(copy.body)) {
    if (parser === undefined) continue;
    for (const delta of parser(event)) {
      if (delta.type === "usage") {
        tokensIn = delta.usage.tokensIn ?? tokensIn;
        tokensOut = delta.usage.tokensOut ?? tokensOut;
      } else if (delta.type === "done") done = true;
      else if (delta.type === "error") errorCode = "stream_error";
    }
  }
  const usage =
    tokensIn === undefined && tokensOut === undefined
      ? null
      : { tokensIn: tokensIn ?? 0, tokensOut: tokensOut ?? 0 };
  return { usage, streamed: true, errorCode: errorCode ?? (done ? null : "incomplete_stream") };
}
