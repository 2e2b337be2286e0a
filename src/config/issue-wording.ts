/**
 * @module
 * The words of a document problem: a sentence about the field and what was found there instead
 * of zod's default wording ("expected object, received null"), the name a typo meant ("did you
 * mean …?") for unknown fields and for values that must be one of a few names, and never the
 * value of a token or key.
 */
import type { z } from "zod";
import { closestName, schemaAt, schemaKeys } from "./suggest.ts";

/** What the wording of a problem may draw on besides the issue itself. */
export interface WordingOptions {
  /**
   * The schema the value was checked against: its field names are what an unknown field is
   * compared with ("did you mean …?").
   */
  readonly schema?: z.ZodType;
  /** The value that was checked, so a message can say what was found at the bad path. */
  readonly input?: unknown;
  /** Names a value at `path` may take besides the schema's, e.g. provider slugs. */
  readonly namesAt?: (path: readonly PropertyKey[]) => readonly string[] | undefined;
  /** How the source writes a top-level key, e.g. `stepwise:models` in a Pulumi stack file. */
  readonly topLevelKey?: (key: string) => string;
}

/** `unknown field "cachTtl": did you mean "cacheTtl"?`, or the fields there are. */
export function unknownFieldMessage(
  path: readonly PropertyKey[],
  key: string,
  options: WordingOptions,
): string {
  const known = options.schema ? schemaKeys(schemaAt(options.schema, path)) : [];
  const name = (field: string) =>
    path.length === 0 && options.topLevelKey ? options.topLevelKey(field) : field;
  const what = path.length === 0 ? "key" : "field";
  if (known.length === 0) return `unknown ${what} "${name(key)}": remove it or check its spelling`;
  const suggestion = closestName(key, known);
  const list = known.map(name).join(", ");
  return suggestion === undefined
    ? `unknown ${what} "${name(key)}": ${path.length === 0 ? "keys" : "fields"} here are ${list}`
    : `unknown ${what} "${name(key)}": did you mean "${name(suggestion)}"?`;
}

/** The value at `path` of `input`, or `undefined`. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

/** Fields whose values are never echoed in a message: tokens, secrets, provider keys. */
function isSecretPath(path: readonly PropertyKey[]): boolean {
  return path.some(
    (segment) =>
      typeof segment === "string" &&
      (/(token|secret|password|apikey)$/i.test(segment) || segment === "byokKeys"),
  );
}

/** A stand-in that keeps the kind of a secret value but not the value. */
function hideValue(value: unknown): unknown {
  if (typeof value === "string") return value === "" ? "" : new HiddenText();
  if (typeof value === "number" || typeof value === "boolean") return new HiddenText(typeof value);
  return value;
}

class HiddenText {
  constructor(readonly kind = "text") {}
}

/** What was found, in words: `empty (null)`, `the text "300"`, `a list`, `the number 5`. */
export function describeValue(value: unknown): string {
  if (value === null) return "empty (null)";
  if (value === undefined) return "missing";
  if (value instanceof HiddenText) return `a ${value.kind} (not shown: it may be a secret)`;
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return value === "" ? "empty text" : `the text "${value}"`;
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${value}`;
  if (typeof value === "object") return "a mapping of fields";
  return typeof value;
}

const expectedWords: Readonly<Record<string, string>> = {
  object: "a mapping of fields (name: value)",
  array: "a list",
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  record: "a mapping of names to values",
};

/** Whether `message` is zod's own default wording rather than one the schema wrote. */
function isZodDefault(message: string): boolean {
  return /^(Invalid input|Invalid option|Too (small|big)|Invalid (string|URL|email)|Invalid$)/.test(
    message,
  );
}

/** A sentence about the field, in place of zod's default wording; the schema's own kept. */
export function humanMessage(issue: z.core.$ZodIssue, options: WordingOptions): string {
  const path = issue.path as PropertyKey[];
  // zod reports the value it saw when parsed with `reportInput`; else look it up.
  const found = "input" in issue ? issue.input : valueAt(options.input, path);
  const field = path.length === 0 ? "the file" : String(path.at(-1));
  let message = issue.message;
  const shown = isSecretPath(path) ? hideValue(found) : found;
  if (isZodDefault(message)) message = defaultReplacement(issue, field, shown) ?? message;
  const names = suggestionNames(issue, path, options);
  const suggestion = typeof found === "string" && names ? closestName(found, names) : undefined;
  return suggestion === undefined ? message : `${message}. Did you mean "${suggestion}"?`;
}

function defaultReplacement(
  issue: z.core.$ZodIssue,
  field: string,
  found: unknown,
): string | undefined {
  switch (issue.code) {
    case "invalid_type": {
      const expected = expectedWords[issue.expected] ?? issue.expected;
      if (found === undefined) return `${field} is required: give ${expected}`;
      if (field === "the file" && (found === null || found === ""))
        return `the file is empty: it needs ${expected}`;
      return `${field} must be ${expected}, not ${describeValue(found)}`;
    }
    case "invalid_value":
      return `${field} must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}, not ${describeValue(found)}`;
    case "invalid_union":
      return `${field} has the wrong form: ${describeValue(found)} is not accepted here (see the reference in README.md)`;
    case "too_small":
    case "too_big": {
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      const side = issue.code === "too_small" ? "at least" : "at most";
      return issue.origin === "array"
        ? `${field} must have ${side} ${bound} item${Number(bound) === 1 ? "" : "s"}`
        : issue.origin === "string"
          ? `${field} must be ${side} ${bound} characters long`
          : `${field} must be ${side} ${bound}, not ${describeValue(found)}`;
    }
    case "invalid_format":
      return issue.format === "url"
        ? `${field} must be a URL such as https://example.com, not ${describeValue(found)}`
        : `${field} is not in the expected form (${issue.format}): ${describeValue(found)}`;
    default:
      return undefined;
  }
}

/** Names a bad string at the issue's path could have meant: the enum's values, or the caller's. */
function suggestionNames(
  issue: z.core.$ZodIssue,
  path: readonly PropertyKey[],
  options: WordingOptions,
): readonly string[] | undefined {
  if (issue.code === "invalid_value")
    return issue.values.filter((value): value is string => typeof value === "string");
  if (issue.code === "custom" || issue.code === "invalid_format") return options.namesAt?.(path);
  return undefined;
}
