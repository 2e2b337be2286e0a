/**
 * @module
 * Reads one streamed answer into normalised deltas. The stream must end with the provider's end
 * marker (`[DONE]`, `message_stop`); one that stops before it, breaks, or goes quiet for longer
 * than the idle timeout fails with an error, never a short success.
 */

import { parseSseStream } from "../providers/index.ts";
import type { FinishReason, SseEvent, StreamParser, TokenUsage } from "../providers/types.ts";
import {
  ApiCallError,
  type GatewayError,
  IncompleteStreamError,
  InvalidResponseError,
  type StepReference,
} from "./errors.ts";
import { transportError } from "./failure.ts";
import type { AttemptScope } from "./scope.ts";
import type { ChatDelta } from "./types.ts";

/** What a stream has delivered so far. */
export interface StreamProgress {
  text: string;
  tokensIn: number | undefined;
  tokensOut: number | undefined;
  finishReason: FinishReason | undefined;
}

/** Options for {@link readDeltas}. */
export interface ReadDeltasOptions {
  readonly body: ReadableStream<Uint8Array>;
  readonly parser: StreamParser;
  readonly scope: AttemptScope;
  readonly idleTimeoutMs: number;
  readonly url: string;
  readonly step: StepReference | undefined;
  readonly deadlineMs: number;
  readonly attempts: () => number;
  readonly progress: StreamProgress;
}

/**
 * Yields text, usage and finish deltas until the end marker.
 * @throws IncompleteStreamError, InvalidResponseError, ApiCallError (an error event), or the
 * abort / deadline / idle-timeout error.
 */
export async function* readDeltas(options: ReadDeltasOptions): AsyncGenerator<ChatDelta> {
  const events = parseSseStream(options.body)[Symbol.asyncIterator]();
  try {
    yield* readUntilDone(options, events);
  } finally {
    // Cancels the body when the stream ends early (an error, or a consumer that stopped). Not
    // awaited: some fetch implementations (msw's interceptor) never settle a body's cancel().
    events.return?.(undefined)?.catch(() => undefined);
  }
}

async function* readUntilDone(
  options: ReadDeltasOptions,
  events: AsyncIterator<SseEvent>,
): AsyncGenerator<ChatDelta> {
  const { progress, scope } = options;
  for (;;) {
    const next = await nextEvent(options, events);
    if (next.done) break;
    for (const delta of options.parser(next.value)) {
      switch (delta.type) {
        case "done":
          return;
        case "error":
          throw streamEventError(options, delta.error);
        case "text":
          progress.text += delta.text;
          yield delta;
          break;
        case "usage":
          progress.tokensIn = delta.usage.tokensIn ?? progress.tokensIn;
          progress.tokensOut = delta.usage.tokensOut ?? progress.tokensOut;
          yield delta;
          break;
        case "finish":
          progress.finishReason = delta.reason;
          yield delta;
          break;
      }
    }
  }
  if (scope.stopReason() !== null) throw stoppedError(options, undefined);
  throw new IncompleteStreamError({
    url: options.url,
    ...(options.step === undefined ? {} : { step: options.step }),
    receivedCharacters: progress.text.length,
  });
}

/** A stream read up to its first text: what came before it, and the rest, unread. */
export interface StreamHead {
  /** Deltas up to and including the first non-empty text delta (all of them if none came). */
  readonly head: readonly ChatDelta[];
  /** The same stream, from after `head`; empty when the stream already ended. */
  readonly rest: AsyncGenerator<ChatDelta>;
}

/**
 * Reads `deltas` until its first non-empty text delta (or its end), holding back what it read so the
 * caller sees nothing yet. A stream that fails here has shown the caller nothing, so the call
 * may still try another step.
 * @throws whatever `deltas` throws before its first text delta (the stream is then closed).
 */
export async function readHead(deltas: AsyncGenerator<ChatDelta>): Promise<StreamHead> {
  const head: ChatDelta[] = [];
  for (;;) {
    const next = await deltas.next();
    if (next.done) break;
    head.push(next.value);
    if (next.value.type === "text" && next.value.text !== "") break;
  }
  return { head, rest: deltas };
}

/** The deltas of a {@link StreamHead}, from its first one. */
export async function* replayHead({ head, rest }: StreamHead): AsyncGenerator<ChatDelta> {
  try {
    yield* head;
    yield* rest;
  } finally {
    // A consumer that stops inside `head` must still close the body.
    await rest.return(undefined);
  }
}

/** The usage a finished stream reported (0 for what it did not say). */
export function usageOf(progress: StreamProgress): TokenUsage {
  return { tokensIn: progress.tokensIn ?? 0, tokensOut: progress.tokensOut ?? 0 };
}

async function nextEvent(
  options: ReadDeltasOptions,
  events: AsyncIterator<SseEvent>,
): Promise<IteratorResult<SseEvent>> {
  const timer = setTimeout(() => options.scope.stopIdle(), options.idleTimeoutMs);
  try {
    return await events.next();
  } catch (cause) {
    throw stoppedError(options, cause);
  } finally {
    clearTimeout(timer);
  }
}

function stoppedError(options: ReadDeltasOptions, cause: unknown): GatewayError {
  const reason = options.scope.stopReason();
  if (reason === null) {
    return new IncompleteStreamError({
      url: options.url,
      ...(options.step === undefined ? {} : { step: options.step }),
      receivedCharacters: options.progress.text.length,
      cause,
    });
  }
  return transportError({
    cause,
    reason,
    url: options.url,
    attemptTimeoutMs: undefined,
    idleTimeoutMs: options.idleTimeoutMs,
    deadlineMs: options.deadlineMs,
    attempts: options.attempts(),
  });
}

function streamEventError(
  options: ReadDeltasOptions,
  error: { readonly status: number; readonly type: string; readonly message: string },
): GatewayError {
  const step = options.step === undefined ? {} : { step: options.step };
  if (error.type === "invalid_stream_event") {
    return new InvalidResponseError({
      message: `The stream could not be read: ${error.message}`,
      url: options.url,
      status: 200,
      ...step,
    });
  }
  return ApiCallError.fromResponse({
    status: error.status,
    url: options.url,
    detail: `error event mid-stream: ${error.message}`,
    errorType: error.type,
    ...step,
  });
}
