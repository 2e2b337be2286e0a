/**
 * @module
 * Server-sent events, as every provider streams them. `parseSseStream` is an incremental parser
 * that follows the WHATWG event-stream rules: `event:` and `data:` fields, multi-line data, LF,
 * CRLF or CR line ends, `:` comments, and chunk boundaries anywhere (inside a line, a CRLF pair
 * or a UTF-8 character). `formatSseEvent` writes events for servers (the emulator's mocks).
 */

import { StepwiseError } from "../errors/index.ts";
import type { SseEvent } from "./types.ts";

const lineFeed = 10;
const carriageReturn = 13;

/** Turns text into events line by line; keeps the unfinished line between pushes. */
class SseDecoder {
  #partialLine = "";
  #skipLeadingLineFeed = false;
  #eventType: string | undefined;
  #dataLines: string[] = [];
  #events: SseEvent[] = [];

  /** Feeds decoded text; returns the events it completed. */
  push(text: string): SseEvent[] {
    if (text === "") return [];
    let lineStart = 0;
    if (this.#skipLeadingLineFeed && text.charCodeAt(0) === lineFeed) lineStart = 1;
    this.#skipLeadingLineFeed = false;
    for (let index = lineStart; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code !== lineFeed && code !== carriageReturn) continue;
      this.#readLine(this.#partialLine + text.slice(lineStart, index));
      this.#partialLine = "";
      if (code === carriageReturn) {
        if (index + 1 === text.length) this.#skipLeadingLineFeed = true;
        else if (text.charCodeAt(index + 1) === lineFeed) index++;
      }
      lineStart = index + 1;
    }
    this.#partialLine += text.slice(lineStart);
    return this.#takeEvents();
  }

  /** Ends the stream: a last line or event without its terminating blank line still counts. */
  end(): SseEvent[] {
    if (this.#partialLine !== "") this.#readLine(this.#partialLine);
    this.#partialLine = "";
    this.#dispatch();
    return this.#takeEvents();
  }

  #readLine(line: string): void {
    if (line === "") {
      this.#dispatch();
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#dataLines.push(value);
    else if (field === "event") this.#eventType = value;
    // `id` and `retry` are for browser reconnection; provider streams do not resume.
  }

  #dispatch(): void {
    if (this.#dataLines.length > 0) {
      const data = this.#dataLines.join("\n");
      const type = this.#eventType;
      this.#events.push(type === undefined || type === "" ? { data } : { event: type, data });
    }
    this.#dataLines = [];
    this.#eventType = undefined;
  }

  #takeEvents(): SseEvent[] {
    const events = this.#events;
    this.#events = [];
    return events;
  }
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
  const decoder = new TextDecoder();
  const sseDecoder = new SseDecoder();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* sseDecoder.push(decoder.decode(value, { stream: true }));
    }
    finished = true;
    yield* sseDecoder.push(decoder.decode());
    yield* sseDecoder.end();
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
