/**
 * @module
 * The upstream transport over an injected `fetch` (see `attempt.ts` for the contract). Tests use
 * it to script upstream answers without servers; the emulator's default is `http-transport.ts`,
 * which skips the web streams and request copies `fetch` costs on every call.
 */
import {
  type AttemptResult,
  abortedResult,
  defaultMaxBodyBytes,
  describeError,
  isEventStream,
  type ResponseHeaders,
  sendsBody,
  type UpstreamTransport,
} from "./attempt.ts";

/** A transport that calls upstreams with `fetch` (redirects are answers, never followed). */
export function fetchTransport(fetch: typeof globalThis.fetch): UpstreamTransport {
  return async (request, options): Promise<AttemptResult> => {
    if (options.signal.aborted) return abortedResult;
    const controller = new AbortController();
    const abort = () => controller.abort();
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
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(sendsBody(request) ? { body: new Uint8Array(request.body) } : {}),
        signal: controller.signal,
        redirect: "manual",
      });
      const headers: [string, string][] = [];
      response.headers.forEach((value, name) => {
        headers.push([name, value]);
      });
      const reader = response.body?.getReader();
      const first = reader ? await reader.read() : { done: true as const, value: undefined };
      clearTimeout(timer);
      if (reader && !first.done && isEventStream(response.headers.get("content-type") ?? "")) {
        return {
          kind: "response",
          status: response.status,
          headers,
          body: {
            kind: "stream",
            chunks: readRest(first.value, reader, release),
            abort: () => {
              abort();
              release();
            },
          },
        };
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      const limit = options.maxBodyBytes ?? defaultMaxBodyBytes;
      for (let next = first; !next.done; next = await reader!.read()) {
        size += next.value.length;
        if (size > limit) {
          controller.abort();
          release();
          return { kind: "network-error", message: `upstream body larger than ${limit} bytes` };
        }
        chunks.push(next.value);
      }
      release();
      return bufferedResponse(response.status, headers, chunks);
    } catch (error) {
      release();
      if (timedOut) return { kind: "timeout", timeoutMs: options.timeoutMs ?? 0 };
      if (options.signal.aborted) return abortedResult;
      return { kind: "network-error", message: describeError(error) };
    }
  };
}

function bufferedResponse(
  status: number,
  headers: ResponseHeaders,
  chunks: readonly Uint8Array[],
): AttemptResult {
  return {
    kind: "response",
    status,
    headers,
    body: { kind: "buffered", bytes: Buffer.concat(chunks) },
  };
}

/** The first chunk, then the rest of the reader; `onEnd` runs when it ends in any way. */
async function* readRest(
  first: Uint8Array,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  onEnd: () => void,
): AsyncGenerator<Uint8Array> {
  let done = false;
  try {
    yield first;
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      yield next.value;
    }
    done = true;
  } finally {
    onEnd();
    if (!done) await reader.cancel().catch(() => undefined);
  }
}
