/**
 * @module
 * The usage of an answer `createGatewayFetch` passed on, read from a copy of it once its body
 * ends: the JSON body, or a stream's events (OpenAI-compatible usage chunks, Anthropic's
 * `message_start` / `message_delta`, …), which must end with the provider's completion signal.
 */

import { type ProviderAdapter, parseSseStream, type TokenUsage } from "../providers/index.ts";
import { invalidStreamEventType, streamParserFor } from "../providers/streams.ts";

/** What the copy of a response showed. */
export interface UsageReading {
  readonly usage: TokenUsage | null;
  readonly streamed: boolean;
  /** `incomplete_stream` or `stream_error` when a stream failed; null otherwise. */
  readonly errorCode: string | null;
}

/**
 * Reads token usage from a copy of a response: the JSON body, or a stream's events (which must
 * end with the provider's completion signal). Never throws; what it cannot read stays null.
 */
export async function readUsage(
  copy: Response,
  adapter: ProviderAdapter | undefined,
): Promise<UsageReading> {
  const streamed = (copy.headers.get("content-type") ?? "").includes("text/event-stream");
  try {
    if (!streamed) {
      const text = await copy.text();
      try {
        return { usage: adapter?.parseResponse(text).usage ?? null, streamed, errorCode: null };
      } catch {
        return { usage: null, streamed, errorCode: null };
      }
    }
    if (copy.body === null) return { usage: null, streamed, errorCode: "incomplete_stream" };
    const parse = adapter === undefined ? undefined : streamParserFor(adapter);
    let tokensIn: number | undefined;
    let tokensOut: number | undefined;
    let complete = parse === undefined;
    let errorCode: string | null = null;
    for await (const event of parseSseStream(copy.body)) {
      for (const delta of parse?.(event) ?? []) {
        if (delta.type === "usage") {
          tokensIn = delta.usage.tokensIn ?? tokensIn;
          tokensOut = delta.usage.tokensOut ?? tokensOut;
        } else if (delta.type === "done" || delta.type === "finish") complete = true;
        else if (delta.type === "error" && delta.error.type !== invalidStreamEventType) {
          errorCode = "stream_error";
        }
      }
    }
    const usage =
      tokensIn === undefined && tokensOut === undefined
        ? null
        : { tokensIn: tokensIn ?? 0, tokensOut: tokensOut ?? 0 };
    return { usage, streamed, errorCode: errorCode ?? (complete ? null : "incomplete_stream") };
  } catch {
    return { usage: null, streamed, errorCode: streamed ? "incomplete_stream" : "network_error" };
  }
}
