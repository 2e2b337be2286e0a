/**
 * The admin API's and the proxy's bodies are checked by hand (`src/config/plain-checks.ts`), so
 * the Worker bundle carries no zod. This table holds them to the zod schemas they replaced (kept
 * here, as they were): every body either accepted by both, with the same value, or refused by
 * both with a 400 `invalid_body` that names the same fields (and, where the schema had its own
 * words, says the same).
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { isKnownProvider } from "../../src/providers/index.ts";
import {
  createAppBodySchema,
  maxKeyLength,
  parseBody,
  rollbackBodySchema,
  rotateBodySchema,
} from "../../src/worker/admin-schemas.ts";
import { WorkerError } from "../../src/worker/errors.ts";
import { gatewayControls, versionPattern } from "../../src/worker/key-layout.ts";
import { compatBodySchema, universalBodySchema } from "../../src/worker/proxy/request-keys.ts";

// The zod schemas as src/worker/admin-schemas.ts and proxy/request-keys.ts had them.
const keySchema = z
  .string({ error: "key must be a string" })
  .min(1, { error: "key is empty: send the provider key in the key field" })
  .max(maxKeyLength, { error: `key is longer than ${maxKeyLength} characters` })
  .refine((key) => !/\s/.test(key), {
    error:
      "key contains whitespace; provider keys never do (a trailing newline or a pasted space?)",
  })
  .refine((key) => /^[\x21-\x7e]+$/.test(key), {
    error: "key must be printable ASCII characters",
  })
  .refine((key) => key.length >= 8, { error: "key is shorter than 8 characters" });

const labelSchema = z
  .string({ error: "label must be a string" })
  .min(1, { error: "label is empty; leave it out or say what rotated the key" })
  .max(100, { error: "label is longer than 100 characters" })
  .regex(/^[\x20-\x7e]+$/, { error: "label must be printable ASCII characters" });

/** `PUT /keys/{provider}`. */
const zodRotate = z.strictObject(
  {
    key: keySchema,
    expiresAt: z.iso
      .datetime({
        offset: true,
        error: "expiresAt must be an ISO-8601 date-time, e.g. 2026-12-31T00:00:00Z",
      })
      .nullable()
      .optional(),
    label: labelSchema.optional(),
  },
  { error: "the body must be a JSON object: { key, expiresAt?, label? }" },
);

/** `POST /keys/{provider}/rollback`. */
const zodRollback = z.strictObject(
  {
    version: z
      .string({ error: "version must be a string" })
      .regex(versionPattern, { error: "version is not a version id (see GET /keys/{provider})" })
      .optional(),
  },
  { error: "the body must be a JSON object: { version? }" },
);

/** `POST /app-tokens`. */
const zodCreateApp = z.strictObject(
  {
    name: z
      .string({ error: "name is required: a name for the app, e.g. checkout-service" })
      .regex(/^[A-Za-z0-9][A-Za-z0-9 ._:-]{0,63}$/, {
        error: "name uses letters, digits, spaces and . _ : - (at most 64 characters)",
      }),
    rateLimit: z
      .strictObject({
        limit: z.int().min(1).max(1_000_000),
        windowSeconds: z.int().min(1).max(86_400),
      })
      .optional(),
    allow: z
      .strictObject(
        {
          gateways: nameList("gateways", "gateway ids"),
          routes: nameList("routes", "route names"),
          providers: nameList("providers", "provider slugs"),
          controls: z
            .array(
              z.enum(gatewayControls, {
                error: `controls lists gateway headers the app may send: ${gatewayControls.join(", ")}`,
              }),
            )
            .max(gatewayControls.length)
            .optional(),
        },
        { error: "allow must be an object: { gateways?, routes?, providers?, controls? }" },
      )
      .optional(),
  },
  { error: "the body must be a JSON object: { name, rateLimit?, allow? }" },
);

/** A list of names in `allow`: what the app may use; left out, no restriction. */
function nameList(field: string, what: string) {
  return z
    .array(
      z.string().regex(/^[A-Za-z0-9@/._-]{1,64}$/, {
        error: `${field} lists ${what}: letters, digits and @ / . _ - (at most 64 characters each)`,
      }),
      { error: `${field} must be a list of ${what}` },
    )
    .max(100, { error: `${field} lists at most 100 ${what}` })
    .optional();
}

const zodProvider = z.string({ error: "provider must be a string" }).refine(isKnownProvider, {
  error: "unknown provider; use an AI Gateway provider slug such as openai or custom-<slug>",
});
const zodUniversal = z
  .array(
    z.looseObject({
      provider: zodProvider,
      endpoint: z.string({ error: "endpoint must be a string" }).min(1),
      headers: z.record(z.string(), z.string()).optional(),
      query: z.unknown().optional(),
    }),
    { error: "the universal body must be a JSON array of steps" },
  )
  .min(1, { error: "the universal body needs at least one step" })
  .max(20, { error: "at most 20 steps per universal request" });
const zodCompat = z.looseObject({
  model: z
    .string({ error: 'model is required, as "{provider}/{model}" or "dynamic/{route}"' })
    .regex(/^[a-z0-9-]+\/.+$/, {
      error: 'model must be "{provider}/{model}" or "dynamic/{route}"',
    }),
});

/** What zod made of a body: the value, or each issue's path and (its own) message. */
function byZod(schema: z.ZodType, body: unknown) {
  const result = schema.safeParse(body);
  if (result.success) return { value: result.data };
  return {
    issues: result.error.issues.map((issue) => ({
      path: issue.path.join("."),
      message: issue.code === "unrecognized_keys" ? null : issue.message,
    })),
  };
}

/** What the hand-written check made of it: the value, or the 400's fields and messages. */
function byHand(check: Parameters<typeof parseBody>[0], body: unknown) {
  try {
    return { value: parseBody(check, body) };
  } catch (error) {
    if (!(error instanceof WorkerError)) throw error;
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_body");
    return { message: error.message };
  }
}

/** Messages the Worker now words for what was wrong, the field still named. */
const reworded = new Set(["endpoint must be a string"]);

/** Both accept with the same value, or both refuse and the 400 names each field zod named. */
function expectSame(schema: z.ZodType, check: Parameters<typeof parseBody>[0], body: unknown) {
  const zod = byZod(schema, body);
  const hand = byHand(check, body);
  if ("value" in zod) {
    expect(hand, JSON.stringify(body)).toEqual({ value: zod.value });
    return;
  }
  expect(hand.message, JSON.stringify(body)).toBeDefined();
  for (const issue of zod.issues) {
    // zod's own words ("Too small: expected number to be >=1") became the Worker's, and so did
    // a type's message zod gave for every check of it (an empty endpoint "must be a string").
    const own =
      issue.message !== null &&
      !/^(Invalid|Too (small|big))/.test(issue.message) &&
      !reworded.has(issue.message);
    const said = own ? issue.message : "";
    expect(hand.message, JSON.stringify(body)).toContain(
      issue.path === "" ? said : `${issue.path}: ${said}`,
    );
  }
}

const key = "sk-test-0123456789";

const rotateBodies: unknown[] = [
  { key },
  { key, label: "ci", expiresAt: "2026-12-31T00:00:00Z" },
  { key, expiresAt: null },
  { key, expiresAt: "2026-12-31T00:00:00.123+02:00" },
  { key, expiresAt: "2026-12-31" },
  { key, expiresAt: "2026-02-30T00:00:00Z" },
  { key, expiresAt: "2026-12-31T00:00Z" },
  { key, expiresAt: 5 },
  { key: "" },
  { key: "short" },
  { key: "has space inside" },
  { key: "ключ-ключ-ключ" },
  { key: "x".repeat(maxKeyLength + 1) },
  { key: 42 },
  {},
  { key, label: "" },
  { key, label: "x".repeat(101) },
  { key, label: "naïve" },
  { key, extra: 1, another: 2 },
  { key: "", label: "" },
  null,
  [key],
  "key",
];

const rollbackBodies: unknown[] = [
  {},
  { version: "1764000000000-abc123" },
  { version: "nope" },
  { version: 5 },
  { version: "1764000000000-abc123", x: 1 },
  [],
  null,
];

const createAppBodies: unknown[] = [
  { name: "checkout-service" },
  { name: "a" },
  { name: "checkout service:v2.1_a-b" },
  { name: "" },
  { name: "-starts-with-dash" },
  { name: "x".repeat(65) },
  { name: 7 },
  {},
  { name: "a", rateLimit: { limit: 10, windowSeconds: 60 } },
  { name: "a", rateLimit: { limit: 0, windowSeconds: 60 } },
  { name: "a", rateLimit: { limit: 1.5, windowSeconds: 60 } },
  { name: "a", rateLimit: { limit: 1_000_001, windowSeconds: 86_401 } },
  { name: "a", rateLimit: { limit: "10", windowSeconds: 60 } },
  { name: "a", rateLimit: { limit: 10 } },
  { name: "a", rateLimit: { limit: 10, windowSeconds: 60, burst: 3 } },
  { name: "a", rateLimit: 10 },
  { name: "a", allow: {} },
  { name: "a", allow: { gateways: ["chat-prod"], routes: ["default"], providers: ["openai"] } },
  { name: "a", allow: { controls: [...gatewayControls] } },
  { name: "a", allow: { controls: ["cf-aig-custom-cost", "cf-aig-cache-ttl"] } },
  { name: "a", allow: { controls: [...gatewayControls, ...gatewayControls] } },
  { name: "a", allow: { gateways: "chat-prod" } },
  { name: "a", allow: { gateways: ["bad name!"] } },
  { name: "a", allow: { routes: Array.from({ length: 101 }, (_, i) => `r${i}`) } },
  { name: "a", allow: { providers: [1] } },
  { name: "a", allow: { apps: ["x"] } },
  { name: "a", allow: [] },
  { name: "a", unknown: true },
  "name",
];

const steps = (count: number) =>
  Array.from({ length: count }, () => ({ provider: "openai", endpoint: "chat/completions" }));

const universalBodies: unknown[] = [
  steps(1),
  steps(20),
  steps(21),
  [],
  {},
  [{ provider: "openai", endpoint: "chat/completions", query: { model: "m" }, extra: [1] }],
  [{ provider: "custom-acme", endpoint: "x", headers: { "cf-aig-skip-cache": "true" } }],
  [{ provider: "nope", endpoint: "x" }],
  [{ provider: 1, endpoint: "x" }],
  [{ provider: "openai", endpoint: "" }],
  [{ provider: "openai" }],
  [{ provider: "openai", endpoint: "x", headers: { a: 1 } }],
  [{ provider: "openai", endpoint: "x", headers: "a" }],
  [null],
  [
    { provider: "openai", endpoint: "x" },
    { provider: "nope", endpoint: "" },
  ],
];

const compatBodies: unknown[] = [
  { model: "openai/gpt-4o-mini", messages: [] },
  { model: "dynamic/default" },
  { model: "openai" },
  { model: "OpenAI/gpt" },
  { model: 4 },
  {},
  [],
  null,
];

describe("the Worker's hand-written body checks accept and refuse what the zod schemas did", () => {
  it.each(rotateBodies.map((body) => [JSON.stringify(body)?.slice(0, 60), body]))(
    "PUT /keys/{provider} %s",
    (_, body) => expectSame(zodRotate, rotateBodySchema, body),
  );
  it.each(rollbackBodies.map((body) => [JSON.stringify(body), body]))(
    "POST /keys/{provider}/rollback %s",
    (_, body) => expectSame(zodRollback, rollbackBodySchema, body),
  );
  it.each(createAppBodies.map((body) => [JSON.stringify(body)?.slice(0, 60), body]))(
    "POST /app-tokens %s",
    (_, body) => expectSame(zodCreateApp, createAppBodySchema, body),
  );
  it.each(universalBodies.map((body) => [JSON.stringify(body)?.slice(0, 60), body]))(
    "universal body %s",
    (_, body) => expectSame(zodUniversal, universalBodySchema, body),
  );
  it.each(compatBodies.map((body) => [JSON.stringify(body), body]))("compat body %s", (_, body) =>
    expectSame(zodCompat, compatBodySchema, body),
  );

  it("never echoes an unknown field's name, nor a value", () => {
    const hand = byHand(rotateBodySchema, { key: "sk", "sk-pasted-as-a-name-0001": 1 });
    expect(hand.message).toContain("1 unknown field(s); check the field names");
    expect(hand.message).not.toContain("sk-pasted");
    expect(versionPattern.test("1764000000000-abc123")).toBe(true);
  });
});
