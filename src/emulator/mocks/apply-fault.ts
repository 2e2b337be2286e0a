/**
 * @module
 * What each fault kind does to one exchange. Error faults answer in the provider's error format;
 * connection faults reset or hold the socket; answer faults send the canonical answer cut,
 * stalled, corrupted, without its end marker or finish, or broken by an error event. Error messages end with `[mock fault: kind]` so
 * a person reading a log sees the failure was injected.
 */

import type { MockAnswer } from "./canonical-answer.ts";
import { type Exchange, sendAnswer, sendError, sendJson, writeHead } from "./respond.ts";
import type { FaultRule } from "./types.ts";

/** How long `slow-first-byte` waits when the rule gives no `delayMs`. */
export const defaultSlowFirstByteMs = 1000;

/** What the exchange needs to send a (possibly faulted) answer. */
export interface AnswerPlan {
  readonly answer: MockAnswer;
  readonly stream: boolean;
  readonly includeUsage: boolean;
}

function tag(rule: FaultRule): string {
  return ` [mock fault: ${rule.kind}]`;
}

/** Sends the healthy answer. */
export function answerNormally(exchange: Exchange, plan: AnswerPlan): void {
  sendAnswer(exchange, plan.answer, { ...plan, mode: { kind: "complete" } });
}

/** Answers one exchange as the fault rule says. */
export function applyFault(exchange: Exchange, rule: FaultRule, plan: AnswerPlan): void {
  const { answer } = plan;
  const model = answer.model;
  switch (rule.kind) {
    case "rate-limit": {
      const seconds = rule.retryAfterSeconds ?? 1;
      const message = `Rate limit reached for ${model}. Please try again in ${seconds}s.`;
      sendError(exchange, "rate_limit", 429, message + tag(rule), { "retry-after": seconds });
      return;
    }
    case "rate-limit-no-retry-after":
      sendError(exchange, "rate_limit", 429, `Rate limit reached for ${model}.${tag(rule)}`);
      return;
    case "server-error-once":
      sendError(exchange, "server_error", 500, `The server had an error.${tag(rule)}`);
      return;
    case "unavailable":
      sendError(exchange, "unavailable", 503, `The service is unavailable.${tag(rule)}`);
      return;
    case "down": {
      const until =
        rule.untilMs === undefined ? "" : ` until ${new Date(rule.untilMs).toISOString()}`;
      sendError(exchange, "unavailable", 503, `The service is down${until}.${tag(rule)}`);
      return;
    }
    case "overloaded":
      sendError(exchange, "overloaded", 529, `Overloaded${tag(rule)}`);
      return;
    case "context-length":
      sendError(
        exchange,
        "context_length",
        400,
        `prompt is too long: this model's maximum context length is ${Math.max(0, answer.tokensIn - 1)} tokens, ` +
          `the request has ${answer.tokensIn} tokens.${tag(rule)}`,
      );
      return;
    case "content-filter":
      sendError(
        exchange,
        "content_filter",
        400,
        `The request was rejected by the content filter.${tag(rule)}`,
      );
      return;
    case "empty-body":
      writeHead(exchange, 200, { "content-type": "application/json", "content-length": 0 });
      exchange.response.end();
      return;
    case "invalid-body":
      sendJson(exchange, 200, {
        object: "mock.unexpected",
        message: `This body is not a ${answer.provider} chat response.${tag(rule)}`,
      });
      return;
    case "connection-reset":
      exchange.response.socket?.resetAndDestroy();
      return;
    case "no-response":
      // Held until the client disconnects or the mocks close.
      return;
    case "slow-first-byte": {
      const cancel = exchange.lifecycle.after(rule.delayMs ?? defaultSlowFirstByteMs, () =>
        answerNormally(exchange, plan),
      );
      exchange.response.once("close", cancel);
      return;
    }
    case "stream-cut":
      sendAnswer(exchange, answer, { ...plan, mode: { kind: "cut" } });
      return;
    case "stream-stall":
      sendAnswer(exchange, answer, {
        ...plan,
        mode:
          rule.delayMs === undefined ? { kind: "stall" } : { kind: "stall", delayMs: rule.delayMs },
      });
      return;
    case "malformed-chunk":
      sendAnswer(exchange, answer, { ...plan, mode: { kind: "malformed" } });
      return;
    case "missing-done":
      sendAnswer(exchange, answer, { ...plan, mode: { kind: "missing-done" } });
      return;
    case "stream-error":
      sendAnswer(exchange, answer, {
        ...plan,
        mode: {
          kind: "error-event",
          message: `The server had an error while streaming.${tag(rule)}`,
        },
      });
      return;
    case "stream-unfinished":
      sendAnswer(exchange, answer, { ...plan, mode: { kind: "unfinished" } });
      return;
    case "guardrail-prompt-blocked":
    case "guardrail-response-blocked":
    case "guardrail-no-credits":
    case "guardrail-unavailable":
      // The gateway applies Guardrails outcomes; a mock's plan never picks them.
      answerNormally(exchange, plan);
      return;
    case "prefill-refused":
      sendError(
        exchange,
        "bad_request",
        400,
        `This model does not support assistant message prefill.${tag(rule)}`,
      );
      return;
  }
}
