/**
 * @module
 * Keeps secrets out of what the proxy returns. Whatever the upstream wrote (a 401 that repeats
 * the key, a debugging header, a stream that echoes it, a cached answer from before a rotation),
 * every spelling of a secret the Worker knows (`secret-spellings.ts`: as written, JSON-escaped,
 * percent-encoded, hex, base64, UTF-16…) in the response headers or body becomes `[redacted]`.
 *
 * The body is scrubbed as it streams: when a chunk ends with bytes that could begin a spelling of
 * a secret, those bytes (only those, never more than the longest spelling less one) are held back
 * until the next chunk, so a secret split across chunks is caught too, and every other chunk
 * passes on whole at once. A stream of events (`text/event-stream`) is scrubbed event by event
 * (`sse-scrub.ts`), so a secret split across two events' deltas is caught as well.
 */
import { SecretMatcher } from "./secret-matcher.ts";
import { EventStreamScrubber } from "./sse-scrub.ts";

/** What replaces a secret. */
export const redacted = "[redacted]";

const redactedBytes = new TextEncoder().encode(redacted);

/** Scrubs the secrets of one call. */
export class SecretScrubber {
  readonly matcher: SecretMatcher;

  constructor(secrets: readonly (string | undefined)[]) {
    this.matcher = new SecretMatcher(secrets);
  }

  /** Text with every secret replaced. */
  text(value: string): string {
    return this.matcher.replace(value, redacted);
  }

  /** A whole body with every secret replaced (the same array when there is none). */
  bytes(body: Uint8Array): Uint8Array {
    return this.#scrubBytes(body, true).out;
  }

  /** A copy of `headers` with every secret in a value replaced. */
  headers(headers: Headers): Headers {
    const scrubbed = new Headers();
    for (const [name, value] of headers) scrubbed.append(name, this.text(value));
    return scrubbed;
  }

  /**
   * The body with every secret replaced, streamed; `events`: a stream of server-sent events,
   * scrubbed event by event. `onEnd` runs once when the body ends, fails or is cancelled by the
   * reader, with up to `keepBytes` of the scrubbed output (for reading usage), or null when the
   * body was longer.
   */
  stream(
    body: ReadableStream<Uint8Array>,
    onEnd: (outcome: { copy: Uint8Array | null; failed: boolean }) => void,
    keepBytes = 0,
    events = false,
  ): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    let carry: Uint8Array = new Uint8Array(0);
    const eventScrubber = events
      ? new EventStreamScrubber(this.matcher, redacted, (bytes, final) =>
          this.#scrubBytes(bytes, final),
        )
      : undefined;
    const copy: Uint8Array[] = [];
    let copied = 0;
    let ended = false;
    const finish = (failed: boolean) => {
      if (ended) return;
      ended = true;
      onEnd({ copy: copied <= keepBytes ? concat(copy, copied) : null, failed });
    };
    const emit = (controller: ReadableStreamDefaultController<Uint8Array>, bytes: Uint8Array) => {
      if (bytes.byteLength === 0) return;
      if (copied <= keepBytes) {
        copied += bytes.byteLength;
        if (copied <= keepBytes) copy.push(bytes);
      }
      controller.enqueue(bytes);
    };
    return new ReadableStream<Uint8Array>({
      // Reads until there is something to pass on: a pull that enqueues nothing is not repeated.
      pull: async (controller) => {
        for (;;) {
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            next = await reader.read();
          } catch (error) {
            finish(true);
            controller.error(error);
            return;
          }
          if (next.done) {
            emit(
              controller,
              eventScrubber !== undefined ? eventScrubber.end() : this.#scrubBytes(carry, true).out,
            );
            controller.close();
            finish(false);
            return;
          }
          let out: Uint8Array;
          if (eventScrubber !== undefined) out = eventScrubber.push(next.value);
          else {
            const scrubbed = this.#scrubBytes(concat([carry, next.value]), false);
            carry = scrubbed.rest;
            out = scrubbed.out;
          }
          if (out.byteLength > 0) {
            emit(controller, out);
            return;
          }
        }
      },
      cancel: async (reason) => {
        finish(true);
        await reader.cancel(reason).catch(() => undefined);
      },
    });
  }

  /**
   * Replaces every secret complete in `data`; holds back the end that could still be the start
   * of one (nothing when `final`). A match that runs into that end is complete: it goes.
   */
  #scrubBytes(data: Uint8Array, final: boolean): { out: Uint8Array; rest: Uint8Array } {
    if (this.matcher.empty || data.byteLength === 0)
      return { out: data, rest: data.subarray(0, 0) };
    const text = byteText(data);
    const found = this.matcher.find(text);
    let limit = final ? text.length : text.length - this.matcher.openTail(text);
    const complete = found.filter((part) => part.start < limit);
    for (const part of complete) limit = Math.max(limit, part.end);
    if (complete.length === 0) {
      if (limit === data.byteLength) return { out: data, rest: data.subarray(0, 0) };
      return { out: data.subarray(0, limit), rest: data.slice(limit) };
    }
    const parts: Uint8Array[] = [];
    let from = 0;
    for (const part of complete) {
      parts.push(data.subarray(from, part.start), redactedBytes);
      from = part.end;
    }
    parts.push(data.subarray(from, limit));
    return { out: concat(parts), rest: data.slice(limit) };
  }
}

/**
 * Bytes as characters one to one (a byte string), so an ASCII spelling is found at its bytes.
 * The WHATWG "latin1" decoder is windows-1252: one character for every byte, ASCII unchanged.
 */
export function byteText(bytes: Uint8Array): string {
  return latin1.decode(bytes);
}

const latin1 = new TextDecoder("latin1");

export function concat(parts: readonly Uint8Array[], size?: number): Uint8Array {
  const total = size ?? parts.reduce((sum, part) => sum + part.byteLength, 0);
  if (parts.length === 1 && parts[0]!.byteLength === total) return parts[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}
