/**
 * @module
 * Conditions of dynamic-route `conditional` elements, MongoDB style:
 * `{"metadata.plan": {"$eq": "free"}}`. Paths start with `metadata.`, `body.` or `headers.`
 * (a bare name is a metadata key). Operators: `$eq`, `$ne`, `$in`, `$nin`, `$gt`, `$gte`, `$lt`,
 * `$lte`, `$exists`; a plain value means `$eq`; several fields must all hold; `$and`, `$or` and
 * `$not` combine conditions. Cloudflare documents only `$eq`; the rest are emulator choices.
 */
import { GatewayRequestError } from "../errors.ts";

/** What a condition can look at. */
export interface ConditionContext {
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly body: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Reads a dotted path such as `metadata.user_id`. */
export function resolvePath(path: string, context: ConditionContext): unknown {
  const [root, ...rest] = path.split(".");
  let value: unknown;
  let keys: string[];
  if (root === "metadata" || root === "body" || root === "headers") {
    value = root === "headers" ? context.headers : context[root];
    keys = root === "headers" ? [rest.join(".").toLowerCase()] : rest;
  } else {
    value = context.metadata;
    keys = [path];
  }
  for (const key of keys) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * Evaluates a condition (an object, or its JSON text as Pulumi stores it).
 * @throws GatewayRequestError 400 for a condition that is not valid.
 */
export function evaluateCondition(condition: unknown, context: ConditionContext): boolean {
  let value = condition;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      throw invalidCondition("it is not valid JSON");
    }
  }
  if (value === undefined || value === null) return true;
  if (typeof value !== "object" || Array.isArray(value)) throw invalidCondition("not an object");
  return Object.entries(value).every(([field, test]) => evaluateField(field, test, context));
}

function evaluateField(field: string, test: unknown, context: ConditionContext): boolean {
  if (field === "$and" || field === "$or") {
    if (!Array.isArray(test)) throw invalidCondition(`${field} takes an array`);
    const results = test.map((item) => evaluateCondition(item, context));
    return field === "$and" ? results.every(Boolean) : results.some(Boolean);
  }
  if (field === "$not") return !evaluateCondition(test, context);
  const actual = resolvePath(field, context);
  if (typeof test !== "object" || test === null || Array.isArray(test)) return actual === test;
  return Object.entries(test).every(([operator, expected]) =>
    applyOperator(operator, actual, expected),
  );
}

function applyOperator(operator: string, actual: unknown, expected: unknown): boolean {
  switch (operator) {
    case "$eq":
      return actual === expected;
    case "$ne":
      return actual !== expected;
    case "$in":
    case "$nin": {
      if (!Array.isArray(expected)) throw invalidCondition(`${operator} takes an array`);
      const found = expected.includes(actual);
      return operator === "$in" ? found : !found;
    }
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      return compare(operator, actual, expected);
    case "$exists":
      return (actual !== undefined) === Boolean(expected);
    default:
      throw invalidCondition(`unknown operator ${operator}`);
  }
}

function compare(operator: string, actual: unknown, expected: unknown): boolean {
  const bothNumbers = typeof actual === "number" && typeof expected === "number";
  const bothStrings = typeof actual === "string" && typeof expected === "string";
  if (!bothNumbers && !bothStrings) return false;
  const left = actual as number | string;
  const right = expected as number | string;
  if (operator === "$gt") return left > right;
  if (operator === "$gte") return left >= right;
  if (operator === "$lt") return left < right;
  return left <= right;
}

function invalidCondition(reason: string): GatewayRequestError {
  return GatewayRequestError.invalid(
    `Dynamic route condition is invalid: ${reason}. Use e.g. {"metadata.plan":{"$eq":"free"}}.`,
  );
}
