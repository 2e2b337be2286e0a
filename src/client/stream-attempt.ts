/**
 * @module
 * One `client.stream` attempt: send the call, and on a 2xx answer read its stream up to the first
 * text delta before the caller sees anything. A universal stream that ends, breaks or cannot be
 * read before then is an unreadable answer (`next: "after-served"`), so the attempt loop moves on
 * at once to the steps after the one that served, as it does for `chat`.
 */

import { type AttemptPlan, compatAdapter, type SentAttempt, sendAttempt } from "./attempt.ts";
import type { AttemptOutcome } from "./attempt-loop.ts";
import type { PreparedCall } from "./call-setup.ts";
import type { CallTracker } from "./call-tracker.ts";
import { referenceOf } from "./chain.ts";
import { adapterFor } from "./chat.ts";
import { type ClientContext, clientDefaults } from "./context.ts";
import { type GatewayError, IncompleteStreamError, InvalidResponseError } from "./errors.ts";
import { failedAnswerOutcome, transportFailureOutcome, unknownStepOutcome } from "./failure.ts";
import type { AttemptScope } from "./scope.ts";
import { readDeltas, readHead, type StreamHead, type StreamProgress } from "./stream-reader.ts";

/** A 2xx streamed answer, read up to its first text delta (or the error that stopped it). */
export interface OpenStream {
  readonly sent: SentAttempt;
  readonly scope: AttemptScope;
  readonly progress: StreamProgress;
  readonly read: { readonly stream: StreamHead } | { readonly error: unknown };
}

/** Makes one attempt; a 2xx answer comes back with its stream read up to the first text. */
export async function streamAttempt(
  context: ClientContext,
  call: PreparedCall,
  tracker: CallTracker,
  plan: AttemptPlan,
): Promise<AttemptOutcome<OpenStream>> {
  const attemptTimeoutMs = context.options.attemptTimeoutMs;
  const scope = call.scope.startAttempt(attemptTimeoutMs);
  let sent: SentAttempt | undefined;
  let keepScope = false;
  try {
    sent = await sendAttempt(context, plan, call.request, call.headers, scope.signal);
    tracker.noteAnswer(sent);
    if (sent.response.ok) {
      if (plan.kind === "universal" && sent.served === null) {
        scope.abandon();
        return unknownStepOutcome(sent);
      }
      scope.clearTimeout();
      const progress: StreamProgress = {
        text: "",
        tokensIn: undefined,
        tokensOut: undefined,
        finishReason: undefined,
      };
      const read = await readStreamHead(context, call, tracker, plan, sent, scope, progress);
      if ("error" in read && isUnusableStream(plan, sent, read.error, call)) {
        scope.abandon();
        return {
          kind: "failure",
          error: read.error,
          next: "after-served",
          position: sent.served?.position ?? null,
          order: sent.order,
          status: sent.response.status,
          stepOutcome: "failed",
          exhausted: false,
        };
      }
      keepScope = true;
      return {
        kind: "answer",
        answer: { sent, scope, progress, read },
        served: sent.served,
        order: sent.order,
        cached: sent.cacheStatus === "HIT",
        observedLater: true,
      };
    }
    return failedAnswerOutcome(sent, await sent.response.text(), context.now);
  } catch (cause) {
    if (sent === undefined) tracker.noteNoAnswer();
    return transportFailureOutcome({
      cause,
      sent,
      reason: scope.stopReason(),
      url: sent?.url ?? context.gatewayUrl,
      attemptTimeoutMs,
      deadlineMs: call.scope.deadlineMs,
      attempts: tracker.attempts,
    });
  } finally {
    if (!keepScope) scope.dispose();
  }
}

/** Starts reading a 2xx stream and reads it up to its first text delta. */
async function readStreamHead(
  context: ClientContext,
  call: PreparedCall,
  tracker: CallTracker,
  plan: AttemptPlan,
  sent: SentAttempt,
  scope: AttemptScope,
  progress: StreamProgress,
): Promise<OpenStream["read"]> {
  const served = sent.served;
  const adapter = served === null ? compatAdapter : adapterFor(plan, served);
  const deltas = readDeltas({
    body: sent.response.body ?? new ReadableStream({ start: (stream) => stream.close() }),
    parser: adapter.createStreamParser(),
    scope,
    idleTimeoutMs: context.options.streamIdleTimeoutMs ?? clientDefaults.streamIdleTimeoutMs,
    url: sent.url,
    step: served === null ? undefined : referenceOf(served.entry),
    deadlineMs: call.scope.deadlineMs,
    attempts: () => tracker.attempts,
    progress,
  });
  try {
    return { stream: await readHead(deltas) };
  } catch (error) {
    return { error };
  }
}

/**
 * True when a universal stream failed before its first text delta because of what it carried
 * (it ended, broke or could not be read), not because the caller or the deadline stopped it:
 * the caller has seen nothing, so the steps after the served one may still answer.
 */
function isUnusableStream(
  plan: AttemptPlan,
  sent: SentAttempt,
  error: unknown,
  call: PreparedCall,
): error is GatewayError {
  return (
    plan.kind === "universal" &&
    sent.served !== null &&
    call.scope.stopReason() === null &&
    (IncompleteStreamError.isInstance(error) || InvalidResponseError.isInstance(error))
  );
}
