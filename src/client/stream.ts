/**
 * @module
 * `client.stream`: deltas as they arrive, then the same result `chat` returns. Attempts are
 * retried (with failover and backoff) until one answers 2xx with a usable stream. Each attempt
 * reads its stream up to the first text delta before the caller sees anything: a universal
 * stream that ends, breaks or cannot be read before then (an empty or non-SSE body, say) is an
 * unreadable answer, and the call moves on at once to the steps after the one that served, as
 * `chat` does. After the first text delta the stream is the answer, so a stream that breaks or
 * ends without its end marker fails the call instead of being retried (the caller has already
 * seen part of it). A validator runs on the complete answer; a rejection fails the call with
 * `OutputRejectedError`.
 */

import { runAttempts } from "./attempt-loop.ts";
import { type PreparedCall, prepareCall, startTracker } from "./call-setup.ts";
import type { CallTracker } from "./call-tracker.ts";
import { observeChain, releaseProbes } from "./chain.ts";
import { errorCodeOf } from "./chat.ts";
import type { ClientContext } from "./context.ts";
import { AbortedError, GatewayError } from "./errors.ts";
import { type OpenStream, streamAttempt } from "./stream-attempt.ts";
import { replayHead, usageOf } from "./stream-reader.ts";
import type { ChatDelta, ChatOptions, ChatResponse, ChatStream } from "./types.ts";

/** Starts `client.stream`; nothing is sent until the stream is iterated or collected. */
export function startStream(context: ClientContext, options: ChatOptions): ChatStream {
  const controller = new AbortController();
  const callerSignal = options.signal;
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });

  let settle!: { resolve(value: ChatResponse): void; reject(error: unknown): void };
  const result = new Promise<ChatResponse>((resolve, reject) => {
    settle = { resolve, reject };
  });
  result.catch(() => undefined);
  let started = false;

  const run = async function* (): AsyncGenerator<ChatDelta> {
    try {
      const response = yield* streamCall(context, { ...options, signal: controller.signal });
      settle.resolve(response);
    } catch (error) {
      settle.reject(error);
      throw error;
    } finally {
      callerSignal?.removeEventListener("abort", onCallerAbort);
      // A consumer that stops early ends the call: free the connection, fail the result.
      controller.abort();
      settle.reject(new AbortedError());
    }
  };
  const generator = run();

  return {
    result,
    [Symbol.asyncIterator]() {
      if (started)
        throw new TypeError(
          "A ChatStream can be iterated only once; read `result` for the answer.",
        );
      started = true;
      return generator;
    },
    collect() {
      if (!started) {
        started = true;
        (async () => {
          for await (const _ of generator) {
            // Draining; the deltas end up in the result.
          }
        })().catch(() => undefined);
      }
      return result;
    },
    cancel() {
      controller.abort();
    },
  };
}

async function* streamCall(
  context: ClientContext,
  options: ChatOptions,
): AsyncGenerator<ChatDelta, ChatResponse> {
  const tracker = startTracker(context, options, true);
  let call: PreparedCall | undefined;
  let finished = false;
  try {
    call = prepareCall(context, options, tracker, true);
    const prepared = call;
    const open = await runAttempts<OpenStream>(context, prepared, tracker, {
      attempt: (plan) => streamAttempt(context, prepared, tracker, plan),
    });
    const response = yield* readAnswer(context, prepared, tracker, open);
    finished = true;
    tracker.recordSuccess(response);
    return response;
  } catch (error) {
    finished = true;
    tracker.recordFailure(errorCodeOf(error));
    throw error;
  } finally {
    if (!finished) tracker.recordFailure("aborted");
    if (call !== undefined) {
      releaseProbes(context.breaker, call.probes);
      call.scope.dispose();
    }
  }
}

async function* readAnswer(
  context: ClientContext,
  call: PreparedCall,
  tracker: CallTracker,
  { sent, scope, progress, read }: OpenStream,
): AsyncGenerator<ChatDelta, ChatResponse> {
  const served = sent.served;
  const entry = served?.entry ?? null;
  const cached = sent.cacheStatus === "HIT";
  const observe = (outcome: "answered" | "failed") => {
    if (served !== null && !cached) {
      observeChain(context.breaker, sent.order, served.position, outcome, call.probes);
    }
  };
  let complete = false;
  try {
    if ("error" in read) throw read.error;
    yield* replayHead(read.stream);
    complete = true;
  } catch (error) {
    const stoppedByCaller = call.scope.stopReason() !== null;
    if (!stoppedByCaller) observe("failed");
    if (entry !== null && GatewayError.isInstance(error))
      tracker.noteFailure(entry, sent.response.status, error);
    throw error;
  } finally {
    if (!complete) scope.abandon();
    scope.dispose();
  }
  observe("answered");
  const usage = usageOf(progress);
  const response: ChatResponse = {
    id: tracker.id,
    text: progress.text,
    usage,
    cost: tracker.costOf(entry, entry?.step.model ?? "", usage, cached),
    finishReason: progress.finishReason ?? "unknown",
    served: {
      index: entry?.index ?? null,
      provider: entry?.step.provider ?? null,
      model: entry?.step.model ?? null,
      responseModel: entry?.step.model ?? "",
      cached,
      logId: sent.logId,
      attempts: tracker.attempts,
      latencyMs: tracker.elapsedMs(),
    },
  };
  const validate = call.options.validate;
  if (validate !== undefined) {
    const verdict = await validate(response);
    if (verdict !== true) {
      throw tracker.noteRejection(
        entry,
        typeof verdict === "string" && verdict !== "" ? verdict : "rejected",
      );
    }
  }
  return response;
}
