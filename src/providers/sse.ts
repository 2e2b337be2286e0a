/**
 * @module
 * Server-sent events, as every provider streams them. Reading is `eventsource-parser` (the WHATWG
 * event-stream rules: `event:` and `data:` fields, multi-line data, LF, CRLF or CR line ends, `:`
 * comments, a leading BOM, chunk boundaries anywhere); the build inlines it, so the client stays
 * free of run-time dependencies. As the standard says, an event that the stream's end cuts off
 * before its blank line is discarded, never dispatched half-read. `formatSseEvent` writes events
 * for servers (the emulator's mocks).
 */

import { createParser } from "eventsource-parser";
import { StepwiseError } from "../errors/index.ts";
import type { SseEvent } from "./types.ts";

/**
 * An incremental decoder: give it each chunk of bytes as it arrives and it returns the events
 * those bytes completed. Call it without bytes at the end of the stream (an unterminated last
 * event is dropped).
 * @example
 * const decode = createSseDecoder();
 * for (const event of decode(chunk)) console.log(event.event, event.data);
 */
export function createSseDecoder(): (bytes?: Uint8Array) => SseEvent[] {
  const text = new TextDecoder();
  let events: SseEvent[] = [];
  // A CR that ends a chunk may be half of a CRLF, so the parser holds it back; at the end of
  // the stream it is a whole line end.
  let endsWithCarriageReturn = false;
  const parser = createParser({
    onEvent: ({ event, data }) => {
      events.push(event === undefined || event === "" ? { data } : { event, data });
    },
  });
  return (bytes) => {
    let chunk = bytes === undefined ? text.decode() : text.decode(bytes, { stream: true });
    if (chunk !== "") endsWithCarriageReturn = chunk.endsWith("\r");
    if (bytes === undefined && endsWithCarriageReturn) chunk += "\n";
    if (chunk !== "") parser.feed(chunk);
    const completed = events;
    events = [];
    return completed;
  };
}

/**
 * Parses a server-sent event stream into events as the bytes arrive. If the consumer stops early
 * the stream is cancelled, so the upstream connection is released.
 * @example
 * for await (const event of parseSseStream(response.body)) console.log(event.event, event.data);
 * @throws whatever the stream throws when reading fails (a dropped connection).
 */
export async function* parseSseStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decode = createSseDecoder();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* decode(value);
    }
    finished = true;
    yield* decode();
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Writes one event in wire form, ending with the blank line that dispatches it. Multi-line data
 * becomes several `data:` lines.
 * @example
 * formatSseEvent({ event: "message_stop", data: '{"type":"message_stop"}' });
 * // 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
 * @throws StepwiseError (`invalid_sse_event`) when the event name contains a line break.
 */
export function formatSseEvent(event: SseEvent): string {
  let text = "";
  if (event.event !== undefined && event.event !== "") {
    if (/[\r\n]/.test(event.event)) {
      throw new StepwiseError({
        code: "invalid_sse_event",
        message: `SSE event names cannot contain line breaks: ${JSON.stringify(event.event)}.`,
      });
    }
    text += `event: ${event.event}\n`;
  }
  for (const line of event.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}
