/**
 * @module
 * The error of a call none of whose steps could be sent: each was at its provider's published
 * quota or its configured cap, so the client sent no request (a certain 429 saves nothing).
 */

import { GatewayError } from "../call-errors.ts";
import type { SteeredStep } from "../types.ts";

/** Options for {@link AllStepsAtCapError}. */
export interface AllStepsAtCapErrorOptions {
  /** Every step of the attempt, with why it was skipped. */
  readonly skipped: readonly SteeredStep[];
  /** When the first of them frees up, in ms from now. */
  readonly retryAfterMs: number;
}

/**
 * Every step of the route is at its quota or cap: no request was sent. Code `all_steps_at_cap`;
 * retryable after `retryAfterMs`.
 */
export class AllStepsAtCapError extends GatewayError {
  static override readonly kind: string = "stepwise.AllStepsAtCapError";
  declare readonly skipped: readonly SteeredStep[];
  declare readonly retryAfterMs: number;

  constructor({ skipped, retryAfterMs }: AllStepsAtCapErrorOptions) {
    const steps = skipped
      .map(({ step, provider, model, reason }) => `step ${step} (${provider}/${model}): ${reason}`)
      .join("; ");
    super({
      code: "all_steps_at_cap",
      message:
        `No step of the route can be sent: ${steps}. Retry after ${retryAfterMs} ms, ` +
        "or raise the provider's limits (or the configured rpm/tpm caps).",
      isRetryable: true,
    });
    this.skipped = skipped;
    this.retryAfterMs = retryAfterMs;
  }
}
