/**
 * @module
 * Reading streamed answers for `client.stream`, loaded with the first stream (`stream.ts`, through
 * `on-demand/index.ts`).
 *
 * Each 2xx stream is read event by event (server-sent events, with the provider's stream format)
 * into deltas for the caller. Reading is tolerant: an event that is not JSON is skipped, and only
 * more than {@link maxMalformedEvents} of them make the stream unreadable. The answer is complete
 * at the provider's own completion signal: a finish reason (`finish_reason`, `stop_reason`,
 * Gemini's `finishReason`), `message_stop` or `[DONE]`; whatever follows a finish reason (usage,
 * `[DONE]`) may be lost to a break or a stall without losing the answer. A stream that ends,
 * breaks or stalls before it (no text within the first-token timeout, or no event within the idle
 * timeout once text flows), or that sends an error event, fails its step.
 *
 * The streamer also keeps the text the caller is shown. When a new answer does not continue that
 * text exactly, its deltas start with a `restart` delta saying how many characters to drop.
 */

import { createSseDecoder } from "../../providers/sse.ts";
import { invalidStreamEventType, streamParserFor } from "../../providers/streams.ts";
import type { FinishReason, ProviderAdapter } from "../../providers/types.ts";
import {
  ApiCallError,
  IncompleteStreamError,
  InvalidResponseError,
  TimeoutError,
} from "../answer-errors.ts";
import { type GatewayError, stepReference } from "../call-errors.ts";
import type { RouteEntry, StreamAnswer, Streamer } from "../call-state.ts";
import type { ChatDelta, GatewayClientOptions } from "../types.ts";

/**
 * Default stream timeouts, in ms: first text after the attempt was sent (headers or not), silence
 * between events. 5 s to the first token: issue 29's outage figures (BENCHMARKS.md, "Time to first
 * token during an outage") showed a primary whose first token took 8 s waited for in full.
 */
export const streamDefaults = { firstTokenTimeoutMs: 5_000, streamIdleTimeoutMs: 5_000 } as const;

/** Stream events that are not JSON a stream may carry before it counts as unreadable. */
export const maxMalformedEvents = 3;

const noop = () => undefined;

/** A streamer that hands each delta to `sink`; see the module description. */
export function createStreamer(
  options: GatewayClientOptions,
  sink: (delta: ChatDelta) => void,
): Streamer {
  let shown = "";
  let discarded = 0;
  let broken = { step: -1, reason: "unknown" };
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** The prefill each step got in the current attempt, by route index. */
  const prefills = new Map<number, string>();
  /** Models (`provider/model`) that refused a prefill. */
  const refused = new Set<string>();
  const now = () => (options.now ?? Date.now)();
  /** When the current attempt was sent: its first-token clock starts there. */
  let sentAt = now();
  const firstTokenMs = (entry: RouteEntry | undefined) =>
    entry?.firstTokenTimeoutMs ?? options.firstTokenTimeoutMs ?? streamDefaults.firstTokenTimeoutMs;

  /** Starts a new answer: a restart delta first when it does not continue what was shown. */
  const startAnswer = (keep: string) => {
    if (shown === keep) return;
    const discardedChars = shown.length - keep.length;
    discarded += discardedChars;
    shown = keep;
    sink({ type: "restart", step: broken.step, reason: broken.reason, discardedChars });
  };

  return {
    get discarded() {
      return discarded;
    },
    request(entry, adapter, request, continuing) {
      const prefill = shown.trimEnd();
      prefills.delete(entry.index);
      if (
        !continuing ||
        prefill === "" ||
        !adapter.acceptsPrefill ||
        refused.has(`${entry.provider}/${entry.model}`)
      ) {
        return request;
      }
      prefills.set(entry.index, prefill);
      return {
        ...request,
        messages: [...request.messages, { role: "assistant", content: prefill }],
      };
    },
    sent(entry) {
      sentAt = now();
      return firstTokenMs(entry);
    },
    prefilled: (entry) => prefills.has(entry.index),
    refusePrefill(entry) {
      refused.add(`${entry.provider}/${entry.model}`);
    },
    broke(step, reason) {
      broken = { step, reason };
    },
    cancel() {
      reader?.cancel().catch(noop);
    },
    async read(response: Response, adapter: ProviderAdapter, entry: RouteEntry | undefined, url) {
      // A continued answer keeps the prefill its step was sent; any other answer starts anew.
      const keep = (entry && prefills.get(entry.index)) ?? "";
      const current = response.body?.getReader();
      reader = current;
      const decode = createSseDecoder();
      const parse = streamParserFor(adapter);
      const step = entry && stepReference(entry);
      const limits = {
        "first-token": firstTokenMs(entry),
        "stream-idle":
          entry?.idleTimeoutMs ?? options.streamIdleTimeoutMs ?? streamDefaults.streamIdleTimeoutMs,
      };
      let text = "";
      let started = false;
      let finish: FinishReason | undefined;
      let done = false;
      let malformed = 0;
      let tokensIn = 0;
      let tokensOut = 0;
      let failure: GatewayError | undefined;
      const deliver = (delta: ChatDelta) => {
        if (!started) startAnswer(keep);
        started = true;
        if (delta.type === "text") shown += delta.text;
        sink(delta);
      };
      // The first-token timeout runs from sending the attempt to the first text (what is left of
      // it once the headers came); the idle timeout then runs between events. Either one stops
      // the read by cancelling the body.
      let stalled: "first-token" | "stream-idle" | undefined;
      const stall = (phase: "first-token" | "stream-idle", ms = limits[phase]) =>
        setTimeout(() => {
          stalled = phase;
          current?.cancel().catch(noop);
        }, ms);
      const firstToken = stall("first-token", sentAt + limits["first-token"] - now());
      try {
        read: while (current !== undefined) {
          const idle = text === "" ? undefined : stall("stream-idle");
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            next = await current.read();
          } catch (cause) {
            if (stalled === undefined) {
              failure = new IncompleteStreamError({
                url,
                step,
                receivedCharacters: text.length,
                cause,
              });
              break;
            }
            next = { done: true, value: undefined };
          } finally {
            clearTimeout(idle);
          }
          if (stalled !== undefined) {
            failure = new TimeoutError({ timeoutMs: limits[stalled], url, step, phase: stalled });
            break;
          }
          if (next.done) break;
          for (const event of decode(next.value)) {
            for (const delta of parse(event)) {
              if (delta.type === "done") {
                done = true;
                break read;
              }
              if (delta.type !== "error") {
                if (delta.type === "text") {
                  clearTimeout(firstToken);
                  text += delta.text;
                } else if (delta.type === "finish") {
                  finish = delta.reason;
                } else {
                  tokensIn = delta.usage.tokensIn ?? tokensIn;
                  tokensOut = delta.usage.tokensOut ?? tokensOut;
                }
                deliver(delta);
              } else if (delta.error.type !== invalidStreamEventType) {
                failure = ApiCallError.fromResponse({
                  status: delta.error.status,
                  url,
                  detail: `error event mid-stream: ${delta.error.message}`,
                  errorType: delta.error.type,
                  step,
                });
                break read;
              } else if (++malformed > maxMalformedEvents) {
                failure = new InvalidResponseError({
                  message: `The stream sent ${malformed} events that are not JSON, the last: ${delta.error.message}`,
                  url,
                  status: response.status,
                  step,
                });
                break read;
              }
            }
          }
        }
      } finally {
        clearTimeout(firstToken);
        reader = undefined;
      }
      // A finish reason is the provider's own end signal: only an error event still fails the step.
      if (finish !== undefined && !ApiCallError.isInstance(failure)) failure = undefined;
      if (!done || failure !== undefined) current?.cancel().catch(noop);
      if (failure === undefined && !done && finish === undefined) {
        failure = new IncompleteStreamError({ url, step, receivedCharacters: text.length });
      }
      const usage = { tokensIn, tokensOut };
      if (failure !== undefined) return { error: failure, midStream: text !== "", usage };
      if (!started) startAnswer(keep);
      const answer: StreamAnswer = {
        text: shown,
        usage,
        finish: finish ?? "unknown",
      };
      return answer;
    },
  };
}
