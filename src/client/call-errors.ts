/**
 * @module
 * The base of the client's error tree, {@link GatewayError}, and the errors any call may end with
 * before or around its attempts: bad options (with the helpers that collect them), the deadline,
 * an abort. The errors about answers are in `answer-errors.ts`, those about a route (an
 * unknown one, every step failed) in `route-errors.ts`; `errors.ts` exports them all.
 */

import { StepwiseError } from "../errors/index.ts";

/** The route step an error is about: its index in the route, provider and model. */
export interface StepReference {
  readonly index: number;
  readonly provider: string;
  readonly model: string;
}

/** The step an error names, from a route step (which carries more). */
export function stepReference({ index, provider, model }: StepReference): StepReference {
  return { index, provider, model };
}

/** Options every client error accepts. */
export interface GatewayErrorOptions {
  /** Stable, machine-readable code, e.g. `rate_limited`. */
  readonly code: string;
  readonly message: string;
  /** True when another attempt (or a later call) may succeed. */
  readonly isRetryable: boolean;
  /** The route step the error is about, when one is known. */
  readonly step?: StepReference | undefined;
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
  declare readonly isRetryable: boolean;
  /** The route step this error is about, when known. */
  declare readonly step: StepReference | undefined;

  constructor({ code, message, isRetryable, step, cause }: GatewayErrorOptions) {
    super({ code, message, cause });
    // Every class declares its kind, `stepwise.<ClassName>`: the name survives minification.
    this.name = (new.target as unknown as { kind: string }).kind.slice(9);
    this.isRetryable = isRetryable;
    this.step = step;
  }
}

/** Options for {@link DeadlineExceededError}. */
export interface DeadlineExceededErrorOptions {
  readonly deadlineMs: number;
  /** Attempts started before the deadline passed. */
  readonly attempts: number;
  /** The last attempt's error, when one had failed before the deadline. */
  readonly cause?: unknown;
}

/**
 * The call's overall deadline passed: attempts, waits between them and streaming included. Code
 * `deadline_exceeded`; retryable, since a new call gets a fresh deadline.
 */
export class DeadlineExceededError extends GatewayError {
  static override readonly kind: string = "stepwise.DeadlineExceededError";
  declare readonly deadlineMs: number;
  declare readonly attempts: number;

  constructor({ deadlineMs, attempts, cause }: DeadlineExceededErrorOptions) {
    super({
      code: "deadline_exceeded",
      message:
        `The call passed its ${deadlineMs} ms deadline after ${attempts} attempt(s). Raise ` +
        "deadlineMs, or shorten step timeouts.",
      isRetryable: true,
      cause,
    });
    this.deadlineMs = deadlineMs;
    this.attempts = attempts;
  }
}

/** The caller's `AbortSignal` fired (or the stream was cancelled). Code `aborted`. */
export class AbortedError extends GatewayError {
  static override readonly kind: string = "stepwise.AbortedError";

  constructor({ cause }: { readonly cause?: unknown } = {}) {
    super({
      code: "aborted",
      message: "The call was aborted by its AbortSignal.",
      isRetryable: false,
      cause,
    });
  }
}

/**
 * Options the client cannot work with: thrown by `createGatewayClient` for bad client options,
 * and by a call for bad call options, before anything is sent. Code `invalid_options`.
 */
export class InvalidOptionsError extends GatewayError {
  static override readonly kind: string = "stepwise.InvalidOptionsError";

  constructor({ message, cause }: { readonly message: string; readonly cause?: unknown }) {
    super({ code: "invalid_options", message, isRetryable: false, cause });
  }
}

/**
 * Adds a problem for a number that is set but not whole and in `[min, max]`.
 * @example wholeNumberProblem(problems, "maxAttempts", 0, 1); // "maxAttempts must be a whole number of at least 1, got 0"
 */
export function wholeNumberProblem(
  problems: string[],
  name: string,
  value: unknown,
  min: number,
  max = Infinity,
): void {
  if (
    value !== undefined &&
    !(Number.isInteger(value) && (value as number) >= min && (value as number) <= max)
  ) {
    problems.push(
      `${name} must be a whole number ${max < Infinity ? `from ${min} to ${max}` : `of at least ${min}`}, got ${value}`,
    );
  }
}

/**
 * Adds a problem for a value that is set but not one of `choices`.
 * @example choiceProblem(problems, "mode", "fast", ["universal", "dynamic"]); // 'mode must be one of "universal", "dynamic"; got "fast"'
 */
export function choiceProblem(
  problems: string[],
  name: string,
  value: unknown,
  choices: readonly string[],
): void {
  if (value !== undefined && !choices.includes(value as string)) {
    problems.push(
      `${name} must be one of ${choices.map((choice) => `"${choice}"`).join(", ")}; got ${JSON.stringify(value)}`,
    );
  }
}

/** The choices of `mode` and `onStreamBreak`, checked by the client and by each call that sets them. */
export const choices = {
  mode: ["universal", "dynamic"],
  onStreamBreak: ["restart", "continue", "fail"],
} as const;

/** Throws the problems found in `what`'s options, all at once. */
export function throwProblems(what: string, problems: readonly string[]): void {
  if (problems.length > 0) {
    throw new InvalidOptionsError({
      message: `${what}: ${problems.map((problem) => problem.replace(/\.$/, "")).join("; ")}.`,
    });
  }
}
