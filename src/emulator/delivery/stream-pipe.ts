/**
 * @module
 * Piping an upstream stream to the client. Streams pass through unbuffered: each upstream chunk
 * is written as it arrives, then parsed for usage and the end marker by the incremental SSE
 * decoder, in the same turn (no web stream in between: that chain cost about 0.1 ms before the
 * first token, BENCHMARKS.md). One reader, so the upstream is read no faster than the client
 * takes the answer. If the
 * upstream connection dies mid-stream, the client connection is destroyed instead of ended: the
 * client sees a broken transfer, never a clean end that could pass for a complete answer.
 */
import { createSseDecoder, type SseEvent } from "../../providers/index.ts";
import { waitForDrain } from "../http/io.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import type { StreamConverter } from "../step/step-target.ts";
import type { StreamedBody } from "../transport/attempt.ts";
import type { StreamUsage } from "./usage.ts";

export interface Piped {
  readonly bytes: number;
  /** The first bytes sent to the client (at most `headBytes`), for the log. */
  readonly head: Buffer;
  readonly error?: "stream_cut" | "client_closed";
}

/** How much of a stream is kept for the log. */
const headBytes = 256 * 1024;

/** Collects the first `headBytes` of what is written. */
class Head {
  readonly #chunks: Buffer[] = [];
  #size = 0;

  add(chunk: Uint8Array | string): void {
    if (this.#size >= headBytes) return;
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk);
    const part = buffer.subarray(0, headBytes - this.#size);
    this.#chunks.push(part);
    this.#size += part.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}

/** Writes the stream through unchanged: each chunk is written first, then read for usage. */
export async function pipeRaw(
  call: GatewayCall,
  body: StreamedBody,
  usage: StreamUsage,
): Promise<Piped> {
  const response = call.response;
  const head = new Head();
  const decode = createSseDecoder();
  let bytes = 0;
  let error: Piped["error"];
  try {
    for await (const chunk of body.chunks) {
      if (response.destroyed) {
        error = "client_closed";
        body.abort();
        break;
      }
      bytes += chunk.length;
      head.add(chunk);
      const drained = response.write(chunk);
      for (const event of decode(chunk)) usage.feed(event);
      if (!drained) await waitForDrain(response);
    }
    if (error === undefined) for (const event of decode()) usage.feed(event);
  } catch {
    error = call.signal.aborted && response.destroyed ? "client_closed" : "stream_cut";
  }
  finish(call, error);
  return error === undefined ? { bytes, head: head.bytes() } : { bytes, head: head.bytes(), error };
}

/** Writes the stream converted event by event (compat). */
export async function pipeConverted(
  call: GatewayCall,
  body: StreamedBody,
  usage: StreamUsage,
  converter: StreamConverter,
): Promise<Piped> {
  const response = call.response;
  const head = new Head();
  const decode = createSseDecoder();
  let bytes = 0;
  let error: Piped["error"];
  const convert = async (events: readonly SseEvent[]): Promise<void> => {
    for (const event of events) {
      const text = converter.convert(usage.feed(event));
      if (text === "") continue;
      bytes += Buffer.byteLength(text);
      head.add(text);
      if (!response.write(text)) await waitForDrain(response);
    }
  };
  try {
    for await (const chunk of body.chunks) {
      if (response.destroyed) {
        error = "client_closed";
        body.abort();
        break;
      }
      await convert(decode(chunk));
    }
    if (error === undefined) await convert(decode());
  } catch {
    error = call.signal.aborted && response.destroyed ? "client_closed" : "stream_cut";
  }
  finish(call, error);
  return error === undefined ? { bytes, head: head.bytes() } : { bytes, head: head.bytes(), error };
}

/** Ends the client response cleanly, or breaks the connection after an upstream cut. */
function finish(call: GatewayCall, error: Piped["error"]): void {
  const response = call.response;
  if (response.destroyed) return;
  if (error === "stream_cut") response.destroy();
  else response.end();
}
