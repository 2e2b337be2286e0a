/**
 * @module
 * Turning what went wrong into the right error. A non-2xx answer is either the gateway's own
 * (an `AiGatewayError` envelope: auth, rate limit, unknown gateway; no step involved) or a
 * provider's answer passed through (at the served step, or the last step when the gateway says
 * nothing, which is how it reports that every step failed). A rejected `fetch` is an abort, the
 * deadline, an attempt timeout or a network error.
 */

import { getProvider } from "../providers/index.ts";
import type { SentAttempt } from "./attempt.ts";
import type { AttemptOutcome } from "./attempt-loop.ts";
import { referenceOf } from "./chain.ts";
import {
  AbortedError,
  ApiCallError,
  DeadlineExceededError,
  type GatewayError,
  InvalidResponseError,
  isRetryableStatus,
  NetworkError,
  TimeoutError,
} from "./errors.ts";
import type { StopReason } from "./scope.ts";

/** What a failed answer means for the chain. */
export interface AnswerFailure {
  readonly error: ApiCallError;
  /** Position of the failing step in the order tried; null for gateway errors. */
  readonly position: number | null;
  /** True when the failing step was the last one the gateway could try. */
  readonly lastStep: boolean;
}

interface GatewayEnvelopeError {
  readonly code: string;
  readonly message: string;
}

/**
 * Reads the gateway's own error envelope,
 * `{ success: false, error: [{ code, message }], name: "AiGatewayError" }`.
 */
export function readGatewayEnvelope(text: string): GatewayEnvelopeError | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== "object" || json === null) return undefined;
  const record = json as Record<string, unknown>;
  const list = record.error;
  const first: unknown = Array.isArray(list) ? list[0] : undefined;
  const isEnvelope =
    record.name === "AiGatewayError" ||
    (typeof first === "object" &&
      first !== null &&
      typeof (first as Record<string, unknown>).code === "number");
  if (!isEnvelope || typeof first !== "object" || first === null) return undefined;
  const { code, message } = first as Record<string, unknown>;
  return {
    code: String(code ?? "unknown"),
    message: typeof message === "string" ? message : "no message",
  };
}

/** The error for a non-2xx answer, and which step (if any) it belongs to. */
export function answerFailure(sent: SentAttempt, text: string, now: () => number): AnswerFailure {
  const { response, url, order } = sent;
  const base = { status: response.status, url, headers: response.headers, responseBody: text, now };
  const envelope = readGatewayEnvelope(text);
  if (envelope !== undefined) {
    const error = ApiCallError.fromResponse({
      ...base,
      detail: `${envelope.message} (gateway error ${envelope.code})`,
      errorType: envelope.code,
    });
    return { error, position: null, lastStep: false };
  }
  const position = sent.served?.position ?? order.length - 1;
  const entry = order[position];
  if (entry === undefined) {
    return { error: ApiCallError.fromResponse(base), position: null, lastStep: false };
  }
  const info = getProvider(entry.step.provider).parseError(response.status, text);
  const error = ApiCallError.fromResponse({
    ...base,
    detail: info.message,
    errorType: info.type,
    step: referenceOf(entry),
  });
  return { error, position, lastStep: position === order.length - 1 };
}

/** The error for a rejected `fetch` or body read, given why the signals fired. */
export function transportError(options: {
  readonly cause: unknown;
  readonly reason: StopReason | null;
  readonly url: string;
  readonly attemptTimeoutMs: number | undefined;
  readonly idleTimeoutMs?: number;
  readonly deadlineMs: number;
  readonly attempts: number;
}): GatewayError {
  const { cause, reason, url } = options;
  if (reason === "aborted") return new AbortedError({ cause });
  if (reason === "deadline") {
    return new DeadlineExceededError({
      deadlineMs: options.deadlineMs,
      attempts: options.attempts,
      cause,
    });
  }
  if (reason === "attempt-timeout") {
    return new TimeoutError({ timeoutMs: options.attemptTimeoutMs ?? 0, url });
  }
  if (reason === "stream-idle") {
    return new TimeoutError({ timeoutMs: options.idleTimeoutMs ?? 0, url, phase: "stream-idle" });
  }
  return new NetworkError({ url, cause });
}

/**
 * A universal answer whose served-step headers name no step that was sent (e.g. `cf-aig-step: 7`
 * for a chain of three): the client cannot tell which adapter reads it.
 */
export function unknownStepError(sent: SentAttempt): InvalidResponseError {
  const headers = sent.response.headers;
  const named = ["cf-aig-step", "cf-aig-provider", "cf-aig-model"]
    .map((name) => `${name}: ${headers.get(name) ?? "(absent)"}`)
    .join(", ");
  return new InvalidResponseError({
    message:
      `The gateway's answer names a step that was not sent (${named}; ${sent.order.length} ` +
      "step(s) sent). Check that baseUrl points at AI Gateway, the emulator or the companion Worker.",
    url: sent.url,
    status: sent.response.status,
  });
}

/** The outcome of an attempt that got a non-2xx answer: retried, blamed on the failing step. */
export function failedAnswerOutcome(
  sent: SentAttempt,
  text: string,
  now: () => number,
): AttemptOutcome<never> {
  const failure = answerFailure(sent, text, now);
  return {
    kind: "failure",
    error: failure.error,
    next: "retry",
    position: failure.position,
    order: sent.order,
    status: sent.response.status,
    stepOutcome: isRetryableStatus(sent.response.status) ? "failed" : "unknown",
    exhausted: failure.lastStep,
  };
}

/** The outcome of an attempt whose `fetch` or body read was rejected; no step is to blame. */
export function transportFailureOutcome(
  options: Parameters<typeof transportError>[0] & { readonly sent: SentAttempt | undefined },
): AttemptOutcome<never> {
  const error = transportError(options);
  return {
    kind: "failure",
    error,
    next: error.isRetryable ? "retry" : "stop",
    position: null,
    order: options.sent?.order ?? [],
    status: null,
    stepOutcome: "unknown",
    exhausted: false,
  };
}

/** The outcome of a universal answer whose headers name no step that was sent; not retried. */
export function unknownStepOutcome(sent: SentAttempt): AttemptOutcome<never> {
  return {
    kind: "failure",
    error: unknownStepError(sent),
    next: "stop",
    position: null,
    order: sent.order,
    status: sent.response.status,
    stepOutcome: "unknown",
    exhausted: false,
  };
}
