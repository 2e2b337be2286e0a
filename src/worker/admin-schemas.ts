/**
 * @module
 * The request bodies of the admin API, checked by hand (`src/config/plain-checks.ts`: the Worker
 * bundle carries no zod), and `parseBody`, which turns a refused body into a 400 that names each
 * bad field. Messages are fixed text: they never echo a value, so a key sent in the wrong field
 * cannot come back in an error. test/worker/admin-schemas.test.ts holds them to the zod schemas
 * they replaced: the same bodies accepted and refused.
 */
import {
  array,
  type Check,
  intBetween,
  invalid,
  object,
  optional,
  type PlainIssue,
  type Rule,
  required,
  string,
} from "../config/plain-checks.ts";
import { WorkerError } from "./errors.ts";
import { type GatewayControl, gatewayControls, versionPattern } from "./key-layout.ts";

/** Longest provider key accepted, in characters. */
export const maxKeyLength = 4096;
/** Largest admin request body, in bytes. */
export const maxAdminBodyBytes = 16 * 1024;

const keyCheck = string(
  "key must be a string",
  [(key) => key.length >= 1, "key is empty: send the provider key in the key field"],
  [(key) => key.length <= maxKeyLength, `key is longer than ${maxKeyLength} characters`],
  [
    (key) => !/\s/.test(key),
    "key contains whitespace; provider keys never do (a trailing newline or a pasted space?)",
  ],
  [(key) => /^[\x21-\x7e]+$/.test(key), "key must be printable ASCII characters"],
  [(key) => key.length >= 8, "key is shorter than 8 characters"],
);

const labelCheck = string(
  "label must be a string",
  [(label) => label.length >= 1, "label is empty; leave it out or say what rotated the key"],
  [(label) => label.length <= 100, "label is longer than 100 characters"],
  [(label) => /^[\x20-\x7e]+$/.test(label), "label must be printable ASCII characters"],
);

/** ISO-8601 date-time with seconds and `Z` or an offset (zod's `z.iso.datetime({ offset: true })`). */
const isoDateTime =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

const expiresMessage = "expiresAt must be an ISO-8601 date-time, e.g. 2026-12-31T00:00:00Z";
const expiresCheck: Check<string | null> = (value, path, issues) =>
  value === null
    ? null
    : string(expiresMessage, [(text) => isoDateTime.test(text), expiresMessage])(
        value,
        path,
        issues,
      );

/** `PUT /keys/{provider}`. */
export const rotateBodySchema = object(
  { key: required(keyCheck), expiresAt: optional(expiresCheck), label: optional(labelCheck) },
  "the body must be a JSON object: { key, expiresAt?, label? }",
);

/** `POST /keys/{provider}/rollback`. */
export const rollbackBodySchema = object(
  {
    version: optional(
      string("version must be a string", [
        (version) => versionPattern.test(version),
        "version is not a version id (see GET /keys/{provider})",
      ]),
    ),
  },
  "the body must be a JSON object: { version? }",
);

/** A list of names in `allow`: what the app may use; left out, no restriction. */
function nameList(field: string, what: string) {
  const many: Rule<readonly unknown[]> = [
    (list) => list.length <= 100,
    `${field} lists at most 100 ${what}`,
  ];
  return optional(
    array(
      string(`${field} lists ${what}`, [
        (name) => /^[A-Za-z0-9@/._-]{1,64}$/.test(name),
        `${field} lists ${what}: letters, digits and @ / . _ - (at most 64 characters each)`,
      ]),
      `${field} must be a list of ${what}`,
      many,
    ),
  );
}

const controlsMessage = `controls lists gateway headers the app may send: ${gatewayControls.join(", ")}`;
const controlCheck = string(controlsMessage, [
  (name) => (gatewayControls as readonly string[]).includes(name),
  controlsMessage,
]) as Check<GatewayControl>;

/** `POST /app-tokens`. */
export const createAppBodySchema = object(
  {
    name: required(
      string("name is required: a name for the app, e.g. checkout-service", [
        (name) => /^[A-Za-z0-9][A-Za-z0-9 ._:-]{0,63}$/.test(name),
        "name uses letters, digits, spaces and . _ : - (at most 64 characters)",
      ]),
    ),
    rateLimit: optional(
      object(
        {
          limit: required(intBetween("rateLimit.limit", 1, 1_000_000)),
          windowSeconds: required(intBetween("rateLimit.windowSeconds", 1, 86_400)),
        },
        "rateLimit must be an object: { limit, windowSeconds }",
      ),
    ),
    allow: optional(
      object(
        {
          gateways: nameList("gateways", "gateway ids"),
          routes: nameList("routes", "route names"),
          providers: nameList("providers", "provider slugs"),
          controls: optional(
            array(controlCheck, "controls must be a list of gateway headers", [
              (list) => list.length <= gatewayControls.length,
              `controls lists at most ${gatewayControls.length} headers`,
            ]),
          ),
        },
        "allow must be an object: { gateways?, routes?, providers?, controls? }",
      ),
    ),
  },
  "the body must be a JSON object: { name, rateLimit?, allow? }",
);

/**
 * Checks a body.
 * @throws {WorkerError} 400 `invalid_body` listing each bad field and how to fix it.
 */
export function parseBody<Value>(check: Check<Value>, body: unknown): Value {
  const issues: PlainIssue[] = [];
  const value = check(body, [], issues);
  if (value !== invalid && issues.length === 0) return value;
  const problems = issues.map((issue) => {
    const path = issue.path.join(".");
    return path === "" ? issue.message : `${path}: ${issue.message}`;
  });
  throw new WorkerError({
    status: 400,
    code: "invalid_body",
    message: `Invalid request body: ${problems.join("; ")}.`,
  });
}
