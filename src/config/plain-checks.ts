/**
 * @module
 * Small hand-written value checks for what the companion Worker parses at run time (its view of
 * the config, the admin API's bodies, the proxy's bodies): the Worker carries only what it runs,
 * and zod was 104 of its 260 kB. Each check returns the value (defaults filled) or
 * {@link invalid}, pushing one issue with its path per problem; messages are fixed text that
 * never echo a value. The zod schemas they mirror stay the reference on the build side, and
 * table tests hold both to the same accepted and refused inputs.
 *
 * @example
 * const issues: PlainIssue[] = [];
 * const body = object({ key: field(string("key must be a string")) }, "a JSON object")(input, [], issues);
 */

/** One problem: where (`["gateways", 0, "id"]`) and what. */
export interface PlainIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** What a check returns for a value it refused (its issues pushed). */
export const invalid: unique symbol = Symbol("invalid");

/** A check of one value at `path`. */
export type Check<Value> = (
  value: unknown,
  path: readonly (string | number)[],
  issues: PlainIssue[],
) => Value | typeof invalid;

/** A rule on a checked value and the message when it fails. */
export type Rule<Value> = readonly [(value: Value) => boolean, string];

function checked<Value>(
  test: (value: unknown) => value is Value,
  message: string,
  rules: readonly Rule<Value>[],
): Check<Value> {
  return (value, path, issues) => {
    if (!test(value)) {
      issues.push({ path, message });
      return invalid;
    }
    // Every broken rule is an issue, as zod reports every failed check of a value.
    const broken = rules.filter(([holds]) => !holds(value));
    for (const [, message] of broken) issues.push({ path, message });
    return broken.length === 0 ? value : invalid;
  };
}

/** A string, then each rule (each broken one is an issue). */
export function string(message: string, ...rules: Rule<string>[]): Check<string> {
  return checked((value): value is string => typeof value === "string", message, rules);
}

/** A finite number. */
export function number(message: string, ...rules: Rule<number>[]): Check<number> {
  return checked(
    (value): value is number => typeof value === "number" && Number.isFinite(value),
    message,
    rules,
  );
}

/** A whole number (a safe integer). */
export function int(message: string, ...rules: Rule<number>[]): Check<number> {
  return checked((value): value is number => Number.isSafeInteger(value), message, rules);
}

export function boolean(message: string): Check<boolean> {
  return checked((value): value is boolean => typeof value === "boolean", message, []);
}

/** A whole number from `min` to `max`, `what` naming it in the message. */
export function intBetween(
  what: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): Check<number> {
  const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `${min} to ${max}`;
  return int(`${what} must be a whole number`, [
    (n) => n >= min && n <= max,
    `${what} must be ${range}`,
  ]);
}

/** An array of `item`, its length held to `rules`. */
export function array<Item>(
  item: Check<Item>,
  message: string,
  ...rules: Rule<readonly unknown[]>[]
): Check<Item[]> {
  const list = checked((value): value is unknown[] => Array.isArray(value), message, rules);
  return (value, path, issues) => {
    const items = list(value, path, issues);
    if (items === invalid) return invalid;
    const out = items.map((entry, index) => item(entry, [...path, index], issues));
    return out.some((entry) => entry === invalid) ? invalid : (out as Item[]);
  };
}

/** A plain object used as a map: each key held to `key`, each value to `value`. */
export function record<Value>(
  key: Check<string>,
  value: Check<Value>,
  message: string,
): Check<Record<string, Value>> {
  return (input, path, issues) => {
    if (!isPlainObject(input)) {
      issues.push({ path, message });
      return invalid;
    }
    const out: Record<string, Value> = {};
    let ok = true;
    for (const [name, entry] of Object.entries(input)) {
      const checkedValue =
        key(name, [...path, name], issues) === invalid
          ? invalid
          : value(entry, [...path, name], issues);
      if (checkedValue === invalid) ok = false;
      else out[name] = checkedValue;
    }
    return ok ? out : invalid;
  };
}

/** A field of an {@link object}: its check, and whether it may be left out (with a default). */
export interface Field<Value> {
  readonly check: Check<Value>;
  readonly optional: boolean;
  readonly fallback?: () => Value;
}

export function required<Value>(check: Check<Value>): Field<Value> {
  return { check, optional: false };
}

/** May be left out (then absent, or `fallback()` when given). `undefined` counts as left out. */
export function optional<Value>(check: Check<Value>, fallback?: () => Value): Field<Value> {
  return fallback === undefined ? { check, optional: true } : { check, optional: true, fallback };
}

type Shape = Readonly<Record<string, Field<unknown>>>;
type Parsed<S extends Shape> = {
  -readonly [K in keyof S]: S[K] extends Field<infer V> ? V : never;
};

/**
 * An object with exactly the fields of `shape` (unknown fields are one issue, `unknown(names)`,
 * by default naming none of them: a key pasted as a field name must not come back), or with
 * them kept as sent (`"keep"`).
 */
export function object<S extends Shape>(
  shape: S,
  message: string,
  unknown: ((names: readonly string[]) => string) | "keep" = (names) =>
    `${names.length} unknown field(s); check the field names`,
): Check<Parsed<S>> {
  return (input, path, issues) => {
    if (!isPlainObject(input)) {
      issues.push({ path, message });
      return invalid;
    }
    const out: Record<string, unknown> = unknown === "keep" ? { ...input } : {};
    let ok = true;
    for (const [name, field] of Object.entries(shape)) {
      const value = input[name];
      if (value === undefined && field.optional) {
        if (field.fallback !== undefined) out[name] = field.fallback();
        continue;
      }
      const result = field.check(value, [...path, name], issues);
      if (result === invalid) ok = false;
      else out[name] = result;
    }
    const extra = Object.keys(input).filter((name) => !Object.hasOwn(shape, name));
    if (unknown !== "keep" && extra.length > 0) {
      issues.push({ path, message: unknown(extra) });
      ok = false;
    }
    return ok ? (out as Parsed<S>) : invalid;
  };
}

/** A non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
