/**
 * @module
 * Writing one mock response: JSON bodies, error bodies in the provider's format, and SSE streams
 * that can be cut, stalled, corrupted or left without their end marker. Every write records the
 * status (and when it was sent) in the attempt log.
 */

import type { ServerResponse } from "node:http";
import { formatSseEvent } from "../../providers/index.ts";
import type { SseEvent } from "../../providers/types.ts";
import type { MockAnswer } from "./canonical-answer.ts";
import type { MockErrorKind, MockWireFormat } from "./formats/index.ts";
import type { MockLifecycle } from "./lifecycle.ts";
import type { AttemptRecord } from "./mock-state.ts";

/** One request being answered. */
export interface Exchange {
  readonly response: ServerResponse;
  readonly format: MockWireFormat;
  readonly lifecycle: MockLifecycle;
  readonly attempt: AttemptRecord;
  readonly now: () => number;
}

/** How a (streamed or plain) answer is sent. */
export type AnswerMode =
  | { readonly kind: "complete" }
  /** Part of the answer, then the socket is destroyed. */
  | { readonly kind: "cut" }
  /** Part of the answer, then a pause of `delayMs` (forever when absent), then the rest. */
  | { readonly kind: "stall"; readonly delayMs?: number }
  /** A stream with one extra event that is not JSON; a plain body that is not JSON. */
  | { readonly kind: "malformed" }
  /** A stream without its end marker. */
  | { readonly kind: "missing-done" }
  /** Part of a stream, then an error event in the provider's format, then the end. */
  | { readonly kind: "error-event"; readonly message: string }
  /** Part of a stream, then a clean end with neither finish reason nor end marker. */
  | { readonly kind: "unfinished" };

/** Sends the status line and headers and records them in the attempt log. */
export function writeHead(
  exchange: Exchange,
  status: number,
  headers: Record<string, string | number>,
): void {
  exchange.attempt.status = status;
  exchange.attempt.respondedAt = exchange.now();
  exchange.response.writeHead(status, headers);
}

/** Sends a complete JSON body. */
export function sendJson(
  exchange: Exchange,
  status: number,
  body: unknown,
  headers: Record<string, string | number> = {},
): void {
  const text = body === undefined ? "" : JSON.stringify(body);
  writeHead(exchange, status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  exchange.response.end(text);
}

/** Sends an error in the provider's format. */
export function sendError(
  exchange: Exchange,
  kind: MockErrorKind,
  status: number,
  message: string,
  headers: Record<string, string | number> = {},
): void {
  sendJson(exchange, status, exchange.format.errorBody(kind, status, message), headers);
}

/** Destroys the socket once `text` is flushed, so the client sees a cut connection. */
function cutAfter(exchange: Exchange, text: string): void {
  exchange.response.write(text, () => exchange.response.destroy());
}

/** Writes `rest` after `delayMs`, or holds the connection open when there is no delay. */
function resumeLater(exchange: Exchange, delayMs: number | undefined, rest: () => void): void {
  if (delayMs === undefined) return;
  const cancel = exchange.lifecycle.after(delayMs, rest);
  exchange.response.once("close", cancel);
}

function sendPlainAnswer(exchange: Exchange, answer: MockAnswer, mode: AnswerMode): void {
  const text = JSON.stringify(exchange.format.answerBody(answer));
  const half = text.slice(0, Math.floor(text.length / 2));
  const body = mode.kind === "malformed" ? half : text;
  writeHead(exchange, 200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  if (mode.kind === "cut") {
    cutAfter(exchange, half);
  } else if (mode.kind === "stall") {
    exchange.response.write(half);
    resumeLater(exchange, mode.delayMs, () => exchange.response.end(text.slice(half.length)));
  } else {
    exchange.response.end(body);
  }
}

/** A copy of a text event whose JSON is cut in half: the `malformed-chunk` event. */
function malformedCopy(event: SseEvent): SseEvent {
  const data = event.data.slice(0, Math.max(1, Math.floor(event.data.length / 2)));
  return event.event === undefined ? { data } : { event: event.event, data };
}

/** A server error in the provider's format, as a stream event. */
function errorEvent(exchange: Exchange, message: string): SseEvent {
  const data = JSON.stringify(exchange.format.errorBody("server_error", 500, message));
  const name = exchange.format.streamErrorEvent;
  return name === undefined ? { data } : { event: name, data };
}

function sendStreamedAnswer(
  exchange: Exchange,
  answer: MockAnswer,
  mode: AnswerMode,
  includeUsage: boolean,
): void {
  const stream = exchange.format.streamEvents(answer, {
    includeUsage,
    endMarker: mode.kind !== "missing-done",
  });
  const events = [...stream.events];
  const firstText = events[stream.preludeCount];
  if (mode.kind === "malformed" && firstText !== undefined) {
    events.splice(stream.preludeCount + 1, 0, malformedCopy(firstText));
  }
  const textCount = answer.chunks.length;
  const partCount = stream.preludeCount + Math.max(1, Math.floor(textCount / 2));
  const wire = events.map(formatSseEvent);
  writeHead(exchange, 200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
  });
  if (mode.kind === "cut") {
    cutAfter(exchange, wire.slice(0, partCount).join(""));
    return;
  }
  if (mode.kind === "error-event" || mode.kind === "unfinished") {
    for (const text of wire.slice(0, partCount)) exchange.response.write(text);
    if (mode.kind === "error-event")
      exchange.response.write(formatSseEvent(errorEvent(exchange, mode.message)));
    exchange.response.end();
    return;
  }
  if (mode.kind === "stall") {
    for (const text of wire.slice(0, partCount)) exchange.response.write(text);
    resumeLater(exchange, mode.delayMs, () => {
      for (const text of wire.slice(partCount)) exchange.response.write(text);
      exchange.response.end();
    });
    return;
  }
  for (const text of wire) exchange.response.write(text);
  exchange.response.end();
}

/** Sends an answer, streamed or plain, in the given mode. */
export function sendAnswer(
  exchange: Exchange,
  answer: MockAnswer,
  options: { readonly stream: boolean; readonly includeUsage: boolean; readonly mode: AnswerMode },
): void {
  if (options.stream) sendStreamedAnswer(exchange, answer, options.mode, options.includeUsage);
  else sendPlainAnswer(exchange, answer, options.mode);
}
