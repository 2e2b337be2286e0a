/**
 * @module
 * Errors about the answer itself: a body the client cannot read ({@link InvalidResponseError}), a
 * stream that stopped early ({@link IncompleteStreamError}), no step answering
 * ({@link AllStepsFailedError}), and answers the caller's validator refused
 * ({@link OutputRejectedError}).
 */

import { GatewayError, type StepReference, withStep } from "./gateway-error.ts";

/** Options for {@link InvalidResponseError}. */
export interface InvalidResponseErrorOptions {
  readonly message: string;
  readonly url: string;
  readonly status: number;
  readonly step?: StepReference;
  readonly cause?: unknown;
}

/**
 * A 2xx answer the client cannot read: empty, not JSON, not the provider's shape, or a stream
 * event that is not JSON. Code `invalid_response`; retryable (a later step may answer properly).
 */
export class InvalidResponseError extends GatewayError {
  static override readonly kind: string = "stepwise.InvalidResponseError";
  readonly url: string;
  readonly status: number;

  constructor({ message, url, status, step, cause }: InvalidResponseErrorOptions) {
    super({ code: "invalid_response", message, isRetryable: true, ...withStep(step), cause });
    this.name = "InvalidResponseError";
    this.url = url;
    this.status = status;
  }
}

/** Options for {@link IncompleteStreamError}. */
export interface IncompleteStreamErrorOptions {
  readonly url: string;
  readonly step?: StepReference;
  /** Characters of text received before the stream stopped. */
  readonly receivedCharacters: number;
  readonly cause?: unknown;
}

/**
 * A stream that ended (or broke) before its end marker (`[DONE]`, `message_stop`). Never
 * treated as a success: the answer may be cut mid-sentence. Code `incomplete_stream`; retryable.
 */
export class IncompleteStreamError extends GatewayError {
  static override readonly kind: string = "stepwise.IncompleteStreamError";
  readonly url: string;
  readonly receivedCharacters: number;

  constructor({ url, step, receivedCharacters, cause }: IncompleteStreamErrorOptions) {
    const how = cause === undefined ? "ended" : "broke";
    super({
      code: "incomplete_stream",
      message:
        `The stream ${how} before its end marker after ${receivedCharacters} characters, so ` +
        "the answer may be cut short. Retry the call; if it keeps happening, check proxies " +
        "between the client and the gateway for response-size or idle limits.",
      isRetryable: true,
      ...withStep(step),
      cause,
    });
    this.name = "IncompleteStreamError";
    this.url = url;
    this.receivedCharacters = receivedCharacters;
  }
}

/** What is known about one failed step. */
export interface StepFailure extends StepReference {
  /**
   * HTTP status of the step's answer; null when the gateway tried the step but reported only the
   * last step's status (universal requests do this), or when there was no answer.
   */
  readonly status: number | null;
  /** The step's error; null when the gateway gave no detail for it. */
  readonly error: GatewayError | null;
}

/**
 * No step of the route answered. Code `all_steps_failed`; retryable when any step's error is.
 * @example
 * if (AllStepsFailedError.isInstance(error)) {
 *   for (const step of error.steps) console.log(step.index, step.provider, step.status);
 * }
 */
export class AllStepsFailedError extends GatewayError {
  static override readonly kind: string = "stepwise.AllStepsFailedError";
  /** One entry per step tried, in the order tried. */
  readonly steps: readonly StepFailure[];

  constructor({
    route,
    steps,
  }: { readonly route: string; readonly steps: readonly StepFailure[] }) {
    const lines = steps.map(
      (step) =>
        `  step ${step.index} ${step.provider}/${step.model}: ` +
        `${step.status === null ? "failed" : `HTTP ${step.status}`}` +
        `${step.error === null ? " (the gateway reported no detail)" : ` — ${step.error.message}`}`,
    );
    const last = steps.at(-1)?.error ?? null;
    super({
      code: "all_steps_failed",
      message:
        `Every step of route "${route}" failed:\n${lines.join("\n")}\n` +
        "Check the providers' status and keys, or add a fallback step on another provider.",
      isRetryable: steps.some((step) => step.error === null || step.error.isRetryable),
      cause: last ?? undefined,
    });
    this.name = "AllStepsFailedError";
    this.steps = steps;
  }
}

/** One answer the validator refused. */
export interface OutputRejection {
  /** The route step that answered; null only when a dynamic route's answer named no step. */
  readonly index: number | null;
  readonly provider: string | null;
  readonly model: string | null;
  /** The validator's reason, or `rejected` when it returned false. */
  readonly reason: string;
}

/**
 * The caller's `validate` refused every answer it saw, and no step was left to try. Code
 * `output_rejected`; not retryable.
 */
export class OutputRejectedError extends GatewayError {
  static override readonly kind: string = "stepwise.OutputRejectedError";
  readonly rejections: readonly OutputRejection[];

  constructor({ rejections }: { readonly rejections: readonly OutputRejection[] }) {
    const list = rejections
      .map(
        (rejection) =>
          `step ${rejection.index ?? "?"} (${rejection.provider ?? "unknown provider"}): ${rejection.reason}`,
      )
      .join("; ");
    const last = rejections.at(-1);
    super({
      code: "output_rejected",
      message:
        `The validator rejected every answer (${list}) and no later step was left. Relax the ` +
        "validator, improve the prompt, or add steps after the ones that answered.",
      isRetryable: false,
      ...withStep(stepOf(last)),
    });
    this.name = "OutputRejectedError";
    this.rejections = rejections;
  }
}

function stepOf(rejection: OutputRejection | undefined): StepReference | undefined {
  if (rejection === undefined || rejection.index === null) return undefined;
  return {
    index: rejection.index,
    provider: rejection.provider ?? "",
    model: rejection.model ?? "",
  };
}
