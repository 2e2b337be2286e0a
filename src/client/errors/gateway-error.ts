/**
 * @module
 * The base of the client's error tree, {@link GatewayError}, and helpers the errors share.
 * `isInstance` (see `src/errors`) works across duplicate copies of the package.
 */

import { StepwiseError } from "../../errors/index.ts";

/** The route step an error is about: its index in the route, provider and model. */
export interface StepReference {
  readonly index: number;
  readonly provider: string;
  readonly model: string;
}

/** Options every client error accepts. */
export interface GatewayErrorOptions {
  /** Stable, machine-readable code, e.g. `rate_limited`. */
  readonly code: string;
  readonly message: string;
  /** True when another attempt (or a later call) may succeed. */
  readonly isRetryable: boolean;
  /** The route step the error is about, when one is known. */
  readonly step?: StepReference;
  readonly cause?: unknown;
}

/**
 * The base of every error the client throws.
 * @example
 * try { await client.chat({ route: "default", messages }); }
 * catch (error) { if (GatewayError.isInstance(error) && error.isRetryable) scheduleRetry(); }
 */
export class GatewayError extends StepwiseError {
  static override readonly kind: string = "stepwise.GatewayError";
  /** True when another attempt (or a later call) may succeed. */
  readonly isRetryable: boolean;
  /** The route step this error is about, when known. */
  readonly step: StepReference | undefined;

  constructor({ code, message, isRetryable, step, cause }: GatewayErrorOptions) {
    super({ code, message, cause });
    this.name = "GatewayError";
    this.isRetryable = isRetryable;
    this.step = step;
  }
}

/** A short description of a thrown value, for messages. */
export function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : "";
    return `${cause.message}${inner}`;
  }
  return String(cause);
}

/** Spreads an optional step into error options. */
export function withStep(step: StepReference | undefined): { step?: StepReference } {
  return step === undefined ? {} : { step };
}
