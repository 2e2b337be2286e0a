/**
 * @module
 * Keeps secrets out of what the proxy returns. Whatever the upstream wrote (a 401 that repeats
 * the key, a debugging header, a stream that echoes it), every occurrence of a secret the Worker
 * holds for this call (the injected provider keys, the app's token, the gateway token) in the
 * response headers or body becomes `[redacted]`. The body is scrubbed as it streams: when a
 * chunk ends with bytes that could begin a secret, those bytes (only those) are held back until
 * the next one, so a secret split across chunks is caught too, and every other chunk passes on
 * whole at once (a stream's events are not delayed to the next one). The JSON-escaped and URL-encoded spellings of a secret are caught as well.
 */

/** What replaces a secret. */
export const redacted = "[redacted]";

const encoder = new TextEncoder();
/** Bytes as characters one to one, so an ASCII secret is found wherever its bytes are. */
const latin1 = new TextDecoder("latin1");
const redactedBytes = encoder.encode(redacted);

/** Scrubs the secrets of one call. */
export class SecretScrubber {
  readonly #texts: readonly string[];
  #patternBytes: readonly Uint8Array[] | undefined;
  #longestBytes = 0;

  constructor(secrets: readonly (string | undefined)[]) {
    const spellings = new Set<string>();
    for (const secret of secrets) {
      if (secret === undefined || secret.length < 4) continue;
      spellings.add(secret);
      spellings.add(JSON.stringify(secret).slice(1, -1));
      spellings.add(JSON.stringify(secret).slice(1, -1).replaceAll("/", "\\/"));
      spellings.add(encodeURIComponent(secret));
    }
    // Longest first, so a spelling that contains another is replaced whole.
    this.#texts = [...spellings].sort((a, b) => b.length - a.length);
  }

  /** The spellings as bytes, for scanning a stream (secrets are ASCII: one byte a character). */
  get #patterns(): readonly Uint8Array[] {
    if (this.#patternBytes === undefined) {
      this.#patternBytes = this.#texts.map((text) => encoder.encode(text));
      this.#longestBytes = Math.max(0, ...this.#patternBytes.map((pattern) => pattern.byteLength));
    }
    return this.#patternBytes;
  }

  get #longest(): number {
    return this.#patterns.length === 0 ? 0 : this.#longestBytes;
  }

  /** Text with every secret replaced. */
  text(value: string): string {
    let result = value;
    for (const text of this.#texts) {
      if (result.includes(text)) result = result.replaceAll(text, redacted);
    }
    return result;
  }

  /** A whole body with every secret replaced (the same array when there is none). */
  bytes(body: Uint8Array): Uint8Array {
    // The common case, no secret in the body, is one native search per spelling.
    const text = latin1.decode(body);
    if (!this.#texts.some((secret) => text.includes(secret))) return body;
    return this.#scrubBytes(body, true).out;
  }

  /** A copy of `headers` with every secret in a value replaced. */
  headers(headers: Headers): Headers {
    const scrubbed = new Headers();
    for (const [name, value] of headers) scrubbed.append(name, this.text(value));
    return scrubbed;
  }

  /**
   * The body with every secret replaced, streamed. `onEnd` runs once when the body ends, fails
   * or is cancelled by the reader, with up to `keepBytes` of the scrubbed output (for reading
   * usage), or null when the body was longer.
   */
  stream(
    body: ReadableStream<Uint8Array>,
    onEnd: (outcome: { copy: Uint8Array | null; failed: boolean }) => void,
    keepBytes = 0,
  ): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    let carry: Uint8Array = new Uint8Array(0);
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
            emit(controller, this.#scrubBytes(carry, true).out);
            controller.close();
            finish(false);
            return;
          }
          const { out, rest } = this.#scrubBytes(concat([carry, next.value]), false);
          carry = rest;
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
   * Replaces every secret that starts early enough to be complete in `data`; holds back the
   * tail that could still be the start of one (nothing when `final`).
   */
  #scrubBytes(data: Uint8Array, final: boolean): { out: Uint8Array; rest: Uint8Array } {
    const holdBack = final ? 0 : this.#openPrefix(data);
    const limit = Math.max(0, data.byteLength - holdBack);
    const parts: Uint8Array[] = [];
    let size = 0;
    let position = 0;
    while (position < limit) {
      const match = this.#earliestMatch(data, position, limit);
      if (match === undefined) break;
      parts.push(data.subarray(position, match.start), redactedBytes);
      size += match.start - position + redactedBytes.byteLength;
      position = match.start + match.length;
    }
    const end = Math.max(position, limit);
    parts.push(data.subarray(position, end));
    size += end - position;
    return { out: concat(parts, size), rest: data.slice(end) };
  }

  /** The length of the longest end of `data` that is the start (not the whole) of a secret. */
  #openPrefix(data: Uint8Array): number {
    const end = data.byteLength;
    for (let length = Math.min(this.#longest - 1, end); length > 0; length--) {
      const start = end - length;
      for (const pattern of this.#patterns) {
        if (pattern.byteLength <= length || pattern[0] !== data[start]) continue;
        let same = true;
        for (let offset = 1; offset < length; offset++) {
          if (data[start + offset] !== pattern[offset]) {
            same = false;
            break;
          }
        }
        if (same) return length;
      }
    }
    return 0;
  }

  #earliestMatch(
    data: Uint8Array,
    from: number,
    limit: number,
  ): { start: number; length: number } | undefined {
    let best: { start: number; length: number } | undefined;
    for (const pattern of this.#patterns) {
      const start = indexOfBytes(data, pattern, from, best?.start ?? limit);
      if (start !== -1 && (best === undefined || start < best.start)) {
        best = { start, length: pattern.byteLength };
      }
    }
    return best;
  }
}

/** First index ≥ `from` and < `before` where `pattern` occurs whole in `data`, or −1. */
function indexOfBytes(data: Uint8Array, pattern: Uint8Array, from: number, before: number): number {
  const first = pattern[0]!;
  let index = data.indexOf(first, from);
  while (index !== -1 && index < before) {
    if (index + pattern.byteLength > data.byteLength) return -1;
    let same = true;
    for (let offset = 1; offset < pattern.byteLength; offset++) {
      if (data[index + offset] !== pattern[offset]) {
        same = false;
        break;
      }
    }
    if (same) return index;
    index = data.indexOf(first, index + 1);
  }
  return -1;
}

function concat(parts: readonly Uint8Array[], size?: number): Uint8Array {
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
