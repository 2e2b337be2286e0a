/**
 * @module
 * One upstream attempt, as every transport makes it: a request, and a timeout measured to the
 * first byte of the body. The timer covers the response head and the first body chunk; once a
 * byte of the answer has arrived no timeout applies (Cloudflare: "once bytes flow, no timeout").
 * A response whose head arrives but whose connection dies before the first body byte counts as a
 * network error, so it is retried or falls back like any other failure.
 *
 * Streams (`text/event-stream`) come back unbuffered after their first chunk; other bodies are
 * read whole, so a body cut mid-way is a network error too (nothing has reached the client yet).
 *
 * Two transports keep this contract: `http-transport.ts` (the default: `node:http` with
 * keep-alive agents, no web streams) and `fetch-transport.ts` (an injected `fetch`, for tests
 * that script their upstreams).
 */

import type { CallSignal } from "./call-abort.ts";

/** Response header name/value pairs, names in lower case, in the order they arrived. */
export type ResponseHeaders = readonly (readonly [string, string])[];

/** A streamed upstream body: its chunks (the first one included), read once. */
export interface StreamedBody {
  readonly kind: "stream";
  /** Every chunk of the body, the first one included; ends or throws with the upstream. */
  readonly chunks: AsyncIterable<Uint8Array>;
  /** Stops the upstream transfer (client gone, emulator closing, body not wanted). */
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
  readonly headers: ResponseHeaders;
  readonly body: BufferedBody | StreamedBody;
}

export type AttemptResult =
  | UpstreamResponse
  | { readonly kind: "network-error"; readonly message: string }
  | { readonly kind: "timeout"; readonly timeoutMs: number };

export interface UpstreamRequest {
  readonly url: string;
  readonly method: string;
  /** Header names in lower case; `content-length` is set by the transport. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
}

export interface AttemptOptions {
  /** Time to first byte; undefined waits as long as the upstream takes (a final attempt). */
  readonly timeoutMs: number | undefined;
  /** Aborted when the client disconnects or the emulator closes. */
  readonly signal: CallSignal;
  /** Largest non-streamed body read; larger ones are a network error. Default 64 MiB. */
  readonly maxBodyBytes?: number;
}

/** Makes one upstream attempt. Never throws: every failure is a result. */
export type UpstreamTransport = (
  request: UpstreamRequest,
  options: AttemptOptions,
) => Promise<AttemptResult>;

/** Largest non-streamed upstream body read when the options set none. */
export const defaultMaxBodyBytes = 64 * 1024 * 1024;

/** The attempt result of a request aborted by the client or the emulator closing. */
export const abortedResult: AttemptResult = { kind: "network-error", message: "request aborted" };

/** The first value of a response header (`name` in lower case). */
export function headerOf(headers: ResponseHeaders, name: string): string | undefined {
  for (const [key, value] of headers) if (key === name) return value;
  return undefined;
}

/** True for a server-sent event stream. */
export function isEventStream(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().includes("text/event-stream") ?? false;
}

/** Whether a request of this method carries its body. */
export function sendsBody(request: UpstreamRequest): request is UpstreamRequest & { body: Buffer } {
  return request.body !== undefined && request.method !== "GET" && request.method !== "HEAD";
}

/** A transport error as one line: the error's message and its cause's. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const causeText = cause instanceof Error ? `: ${cause.message}` : "";
    return `${error.message}${causeText}`;
  }
  return String(error);
}

/** A whole JSON body as an upstream response: what the gateway answers in a provider's place. */
export function jsonUpstreamResponse(
  status: number,
  body: unknown,
): UpstreamResponse & { body: BufferedBody } {
  return {
    kind: "response",
    status,
    headers: [["content-type", "application/json"]],
    body: { kind: "buffered", bytes: Buffer.from(JSON.stringify(body)) },
  };
}
