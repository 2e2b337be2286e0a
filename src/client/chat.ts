/**
 * @module
 * `client.chat`: one normalised answer and the step that served it. Each attempt reads the whole
 * body and parses it with the serving step's adapter (universal) or as OpenAI's shape (dynamic,
 * compat endpoint); the attempt loop handles retries, failover and validation.
 */

import { getProvider } from "../providers/index.ts";
import type { ChatResult, ProviderAdapter } from "../providers/types.ts";
import {
  type AttemptPlan,
  compatAdapter,
  type SentAttempt,
  type ServedPosition,
  sendAttempt,
} from "./attempt.ts";
import { type AttemptOutcome, runAttempts, type Verdict } from "./attempt-loop.ts";
import { type PreparedCall, prepareCall, startTracker } from "./call-setup.ts";
import type { CallTracker } from "./call-tracker.ts";
import { type ChainEntry, referenceOf, releaseProbes } from "./chain.ts";
import type { ClientContext } from "./context.ts";
import { GatewayError, InvalidResponseError } from "./errors.ts";
import { failedAnswerOutcome, transportFailureOutcome, unknownStepOutcome } from "./failure.ts";
import type { ChatOptions, ChatResponse, OutputValidator } from "./types.ts";

/** A parsed answer and where it came from. */
interface ChatAnswer {
  readonly response: ChatResponse;
}

/** Runs `client.chat`; records exactly one event. */
export async function runChat(context: ClientContext, options: ChatOptions): Promise<ChatResponse> {
  const tracker = startTracker(context, options, false);
  let call: PreparedCall | undefined;
  try {
    call = prepareCall(context, options, tracker, false);
    const prepared = call;
    const validate = options.validate;
    const { response } = await runAttempts<ChatAnswer>(context, prepared, tracker, {
      attempt: (plan) => chatAttempt(context, prepared, tracker, plan),
      // Without a validator every answer is accepted as it comes, with no wait for a verdict.
      ...(validate === undefined
        ? {}
        : { judge: (answer: ChatAnswer) => judge(validate, answer.response) }),
    });
    tracker.recordSuccess(response);
    return response;
  } catch (error) {
    tracker.recordFailure(errorCodeOf(error));
    throw error;
  } finally {
    if (call !== undefined) {
      releaseProbes(context.breaker, call.probes);
      call.scope.dispose();
    }
  }
}

/** The event's `errorCode` for anything a call throws (a validator's own error included). */
export function errorCodeOf(error: unknown): string {
  if (GatewayError.isInstance(error)) return error.code;
  if (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { code?: unknown }).code === "string"
  ) {
    return (error as { code: string }).code;
  }
  return "unexpected_error";
}

async function judge(validate: OutputValidator, response: ChatResponse): Promise<Verdict> {
  const verdict = await validate(response);
  if (verdict === true) return { accepted: true };
  return {
    accepted: false,
    reason: typeof verdict === "string" && verdict !== "" ? verdict : "rejected",
  };
}

async function chatAttempt(
  context: ClientContext,
  call: PreparedCall,
  tracker: CallTracker,
  plan: AttemptPlan,
): Promise<AttemptOutcome<ChatAnswer>> {
  const attemptTimeoutMs = context.options.attemptTimeoutMs;
  const attemptScope = call.scope.attemptSignal(attemptTimeoutMs);
  let sent: SentAttempt | undefined;
  try {
    sent = await sendAttempt(context, plan, call.request, call.headers, attemptScope.signal);
    tracker.noteAnswer(sent);
    const text = await sent.response.text();
    if (!sent.response.ok) {
      return failedAnswerOutcome(sent, text, context.now);
    }
    return readAnswer(plan, tracker, sent, text);
  } catch (cause) {
    if (sent === undefined) tracker.noteNoAnswer();
    return transportFailureOutcome({
      cause,
      sent,
      reason: attemptScope.stopReason(),
      url: sent?.url ?? context.gatewayUrl,
      attemptTimeoutMs,
      deadlineMs: call.scope.deadlineMs,
      attempts: tracker.attempts,
    });
  } finally {
    attemptScope.dispose();
  }
}

function readAnswer(
  plan: AttemptPlan,
  tracker: CallTracker,
  sent: SentAttempt,
  text: string,
): AttemptOutcome<ChatAnswer> {
  let served = sent.served;
  if (plan.kind === "universal" && served === null) {
    return unknownStepOutcome(sent);
  }
  let parsed: ChatResult;
  try {
    const adapter = served === null ? compatAdapter : adapterFor(plan, served);
    parsed = adapter.parseResponse(text, served?.entry.step.model);
  } catch (cause) {
    const step = served === null ? undefined : referenceOf(served.entry);
    const error = new InvalidResponseError({
      message:
        `The answer${step ? ` from step ${step.index} (${step.provider}/${step.model})` : ""} could not be read: ` +
        `${cause instanceof Error ? cause.message : String(cause)}`,
      url: sent.url,
      status: sent.response.status,
      ...(step === undefined ? {} : { step }),
      cause,
    });
    return {
      kind: "failure",
      error,
      next: "after-served",
      position: served?.position ?? null,
      order: sent.order,
      status: sent.response.status,
      stepOutcome: "failed",
      exhausted: false,
    };
  }
  if (served === null) served = matchByModel(sent.order, parsed.model);
  const entry: ChainEntry | null = served?.entry ?? null;
  const cached = sent.cacheStatus === "HIT";
  const response: ChatResponse = {
    id: tracker.id,
    text: parsed.text,
    usage: parsed.usage,
    cost: tracker.costOf(entry, parsed.model, parsed.usage, cached),
    finishReason: parsed.finishReason,
    served: {
      index: entry?.index ?? null,
      provider: entry?.step.provider ?? null,
      model: entry?.step.model ?? null,
      responseModel: parsed.model,
      cached,
      logId: sent.logId,
      attempts: tracker.attempts,
      latencyMs: tracker.elapsedMs(),
    },
  };
  return { kind: "answer", answer: { response }, served, order: sent.order, cached };
}

/** Universal answers are in the serving provider's format; compat answers in OpenAI's. */
export function adapterFor(plan: AttemptPlan, served: ServedPosition): ProviderAdapter {
  return plan.kind === "universal" ? getProvider(served.entry.step.provider) : compatAdapter;
}

/**
 * For a dynamic route whose answer has no served-step headers: the step whose model the body
 * names (`gpt-4o-mini`, `openai/gpt-4o-mini` or a dated snapshot of it), when exactly one does.
 */
export function matchByModel(order: readonly ChainEntry[], model: string): ServedPosition | null {
  const matches = order
    .map((entry, position) => ({ entry, position }))
    .filter(({ entry }) => {
      const named = entry.step.model;
      return (
        model === named ||
        model === `${entry.step.provider}/${named}` ||
        (model.startsWith(`${named}-`) &&
          /^-(\d{4}-\d{2}-\d{2}|\d{8})$/.test(model.slice(named.length)))
      );
    });
  return matches.length === 1 ? matches[0]! : null;
}
