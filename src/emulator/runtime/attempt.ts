/**
 * @module
 * One upstream attempt: fetch with a timeout measured to the first byte of the body. The timer
 * covers the response head and the first body chunk; once a byte of the answer has arrived no
 * timeout applies (Cloudflare: "once bytes flow, no timeout"). A response whose head arrives but
 * whose connection dies before the first body byte counts as a network error, so it is retried
 * or falls back like any other failure.
 *
 * Streams (`text/event-stream`) come back unbuffered after their first chunk; other bodies are
 * read whole, so a body cut mid-way is a network error too (nothing has reached the client yet).
 */

/** A streamed upstream body: the first chunk re-attached, and a way to abort the connection. */
export interface StreamedBody {
  readonly kind: "stream";
  readonly stream: ReadableStream<Uint8Array>;
  /** Aborts the upstream fetch (client gone, emulator closing, body not wanted). */
  readonly abort: () => void;
}

export interface BufferedBody {
  readonly kind: "buffered";
  readonly bytes: Buffer;
}

/** An upstream response whose head (and first body byte) arrived. */
export interface UpstreamResponse {
  readonly kind: "response";
  readonly status: number;
  readonly headers: Headers;
  readonly body: BufferedBody | StreamedBody;
}

export type AttemptResult =
  | UpstreamResponse
  | { readonly kind: "network-error"; readonly message: string }
  | { readonly kind: "timeout"; readonly timeoutMs: number };

export interface UpstreamRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
}

export interface AttemptOptions {
  readonly fetch: typeof globalThis.fetch;
  /** Time to first byte; undefined waits as long as the upstream takes (a final attempt). */
  readonly timeoutMs: number | undefined;
  /** Aborted when the client disconnects or the emulator closes. */
  readonly signal: AbortSignal;
  /** Largest non-streamed body read; larger ones are a network error. Default 64 MiB. */
  readonly maxBodyBytes?: number;
}

/** True for a server-sent event stream. */
export function isEventStream(headers: Headers): boolean {
  return (headers.get("content-type") ?? "").toLowerCase().includes("text/event-stream");
}

/** Makes one attempt. Never throws. */
export async function attemptUpstream(
  request: UpstreamRequest,
  options: AttemptOptions,
): Promise<AttemptResult> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (options.signal.aborted) return { kind: "network-error", message: "request aborted" };
  options.signal.addEventListener("abort", abort, { once: true });
  let timedOut = false;
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, options.timeoutMs);
  let released = false;
  const release = () => {
    clearTimeout(timer);
    if (!released) options.signal.removeEventListener("abort", abort);
    released = true;
  };
  try {
    const response = await options.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined || request.method === "GET" || request.method === "HEAD"
        ? {}
        : { body: new Uint8Array(request.body) }),
      signal: controller.signal,
      redirect: "manual",
    });
    const reader = response.body?.getReader();
    const first = reader ? await reader.read() : { done: true as const, value: undefined };
    clearTimeout(timer);
    if (reader && !first.done && isEventStream(response.headers)) {
      const stream = reattach(first.value, reader, () => {
        release();
      });
      return {
        kind: "response",
        status: response.status,
        headers: response.headers,
        body: { kind: "stream", stream, abort },
      };
    }
    const chunks: Uint8Array[] = first.done ? [] : [first.value];
    let size = chunks[0]?.length ?? 0;
    const limit = options.maxBodyBytes ?? 64 * 1024 * 1024;
    while (reader && !first.done) {
      const next = await reader.read();
      if (next.done) break;
      size += next.value.length;
      if (size > limit) {
        controller.abort();
        return { kind: "network-error", message: `upstream body larger than ${limit} bytes` };
      }
      chunks.push(next.value);
    }
    release();
    return {
      kind: "response",
      status: response.status,
      headers: response.headers,
      body: { kind: "buffered", bytes: Buffer.concat(chunks) },
    };
  } catch (error) {
    release();
    if (timedOut) return { kind: "timeout", timeoutMs: options.timeoutMs ?? 0 };
    return { kind: "network-error", message: describe(error) };
  }
}

/** The stream again with its first chunk in front; `onEnd` runs when it ends in any way. */
function reattach(
  first: Uint8Array,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  let firstSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!firstSent) {
        firstSent = true;
        controller.enqueue(first);
        return;
      }
      try {
        const next = await reader.read();
        if (next.done) {
          onEnd();
          controller.close();
        } else {
          controller.enqueue(next.value);
        }
      } catch (error) {
        onEnd();
        controller.error(error);
      }
    },
    async cancel(reason) {
      onEnd();
      await reader.cancel(reason).catch(() => undefined);
    },
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? `: ${cause.message}` : "";
    return `${error.message}${causeText}`;
  }
  return String(error);
}
