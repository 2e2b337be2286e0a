/**
 * @module
 * The base of every error Stepwise throws. Each error has a stable `code` that callers can
 * switch on, a message that says how to fix the problem, and an optional `cause`.
 *
 * `isInstance` works across duplicate copies of the package (bundlers, workspaces), because it
 * checks a `Symbol.for` marker instead of the prototype chain.
 */

const marker = Symbol.for("stepwise.error");

export interface StepwiseErrorOptions {
  /** Stable, machine-readable error code, e.g. `config_invalid`. */
  readonly code: string;
  readonly message: string;
  readonly cause?: unknown;
}

export class StepwiseError extends Error {
  readonly code: string;
  readonly [marker] = true;

  constructor({ code, message, cause }: StepwiseErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "StepwiseError";
    this.code = code;
  }

  /** True for any Stepwise error, from any copy of the package. */
  static isInstance(error: unknown): error is StepwiseError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
