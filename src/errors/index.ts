/**
 * @module
 * The base of every error Stepwise throws. Each error has a stable `code` that callers can
 * switch on, a message that says how to fix the problem, and an optional `cause`.
 *
 * `XxxError.isInstance(value)` is true for instances of `XxxError` and its subclasses only, from
 * any copy of the package (bundlers, workspaces): each class declares a unique `kind`, and every
 * instance carries, under a `Symbol.for` key, the kinds of its class and of each ancestor. The
 * prototype chain is never consulted, so two copies of the package agree.
 *
 * @example
 * export class QuotaError extends StepwiseError {
 *   static override readonly kind: string = "stepwise.QuotaError";
 *   constructor(message: string) { super({ code: "quota", message }); this.name = "QuotaError"; }
 * }
 * QuotaError.isInstance(new QuotaError("…")); // true
 * QuotaError.isInstance(new StepwiseError({ code: "x", message: "…" })); // false
 */

const kindsKey = Symbol.for("stepwise.error.kinds");

export interface StepwiseErrorOptions {
  /** Stable, machine-readable error code, e.g. `config_invalid`. */
  readonly code: string;
  readonly message: string;
  readonly cause?: unknown;
}

/** An error class, as `isInstance` sees it. */
type ErrorClass<T> = (abstract new (...args: never[]) => T) & { readonly kind: string };

export class StepwiseError extends Error {
  /**
   * The identity `isInstance` checks. Every subclass declares its own (`stepwise.<ClassName>`);
   * a test fails on any error class that does not.
   */
  static readonly kind: string = "stepwise.StepwiseError";

  readonly code: string;
  declare readonly [kindsKey]: readonly string[];

  constructor({ code, message, cause }: StepwiseErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "StepwiseError";
    this.code = code;
    Object.defineProperty(this, kindsKey, { value: kindsOf(new.target), enumerable: false });
  }

  /**
   * True when `error` is an instance of this class or of a subclass, from any copy of the
   * package. Call it on the class (`ConfigError.isInstance(error)`), or pass it bound:
   * `(error) => ConfigError.isInstance(error)`.
   */
  static isInstance<T>(this: ErrorClass<T>, error: unknown): error is T {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class isInstance was called on, by design
    if (typeof this !== "function") {
      throw new TypeError(
        "isInstance was called without its class: call XxxError.isInstance(value), or wrap it in an arrow function.",
      );
    }
    if (typeof error !== "object" || error === null) return false;
    const kinds = (error as { [kindsKey]?: unknown })[kindsKey];
    // biome-ignore lint/complexity/noThisInStatic: the kind of the class isInstance was called on
    return Array.isArray(kinds) && kinds.includes(this.kind);
  }
}

/** The kinds of `target` and of each ancestor class that declares its own. */
function kindsOf(target: unknown): readonly string[] {
  const kinds: string[] = [];
  for (let current = target; typeof current === "function"; ) {
    if (Object.hasOwn(current, "kind")) kinds.push((current as unknown as { kind: string }).kind);
    current = Object.getPrototypeOf(current);
  }
  return kinds;
}
