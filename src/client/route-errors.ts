/**
 * @module
 * The errors about a call's route: it names none the client was given
 * ({@link UnknownRouteError}), every step failed ({@link AllStepsFailedError}, with each step's
 * own error), or the caller's validator refused every answer ({@link OutputRejectedError}). Each
 * step's own errors are in `answer-errors.ts`.
 */

import { GatewayError, type StepReference } from "./call-errors.ts";

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
  declare readonly steps: readonly StepFailure[];

  constructor({
    route,
    steps,
  }: { readonly route: string; readonly steps: readonly StepFailure[] }) {
    const lines = steps.map(
      ({ index, provider, model, status, error }) =>
        `  step ${index} ${provider}/${model}: ${status === null ? "failed" : `HTTP ${status}`}` +
        (error === null ? " (the gateway reported no detail)" : ` — ${error.message}`),
    );
    super({
      code: "all_steps_failed",
      message:
        `Every step of route "${route}" failed:\n${lines.join("\n")}\n` +
        "Check the providers' status and keys, or add a fallback step.",
      isRetryable: steps.some((step) => step.error === null || step.error.isRetryable),
      cause: steps.at(-1)?.error ?? undefined,
    });
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
  declare readonly rejections: readonly OutputRejection[];

  constructor({ rejections }: { readonly rejections: readonly OutputRejection[] }) {
    const list = rejections
      .map((it) => `step ${it.index ?? "?"} (${it.provider ?? "unknown provider"}): ${it.reason}`)
      .join("; ");
    const last = rejections.at(-1);
    super({
      code: "output_rejected",
      message: `The validator rejected every answer (${list}) and no step was left. Relax the validator or add steps.`,
      isRetryable: false,
      step:
        last?.index == null
          ? undefined
          : { index: last.index, provider: last.provider ?? "", model: last.model ?? "" },
    });
    this.rejections = rejections;
  }
}

/** The call named a route the client was not given. Code `unknown_route`. */
export class UnknownRouteError extends GatewayError {
  static override readonly kind: string = "stepwise.UnknownRouteError";
  declare readonly route: string;

  constructor({
    route,
    knownRoutes,
  }: { readonly route: string; readonly knownRoutes: readonly string[] }) {
    super({
      code: "unknown_route",
      message:
        `Unknown route "${route}". Known routes: ${knownRoutes.join(", ") || "none"} (from the ` +
        "routes given to createGatewayClient).",
      isRetryable: false,
    });
    this.route = route;
  }
}
