/**
 * @module
 * The request bodies of the admin API, as zod schemas, and `parseBody`, which turns a failed
 * parse into a 400 that names each bad field. Messages are fixed text: they never echo a value,
 * so a key sent in the wrong field cannot come back in an error.
 */
import * as z from "zod";
import { WorkerError } from "./errors.ts";
import { gatewayControls, versionPattern } from "./key-layout.ts";

/** Longest provider key accepted, in characters. */
export const maxKeyLength = 4096;
/** Largest admin request body, in bytes. */
export const maxAdminBodyBytes = 16 * 1024;

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
export const rotateBodySchema = z.strictObject(
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
export const rollbackBodySchema = z.strictObject(
  {
    version: z
      .string({ error: "version must be a string" })
      .regex(versionPattern, { error: "version is not a version id (see GET /keys/{provider})" })
      .optional(),
  },
  { error: "the body must be a JSON object: { version? }" },
);

/** `POST /app-tokens`. */
export const createAppBodySchema = z.strictObject(
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

/**
 * Parses a body with a schema.
 * @throws {WorkerError} 400 `invalid_body` listing each bad field and how to fix it.
 */
export function parseBody<Schema extends z.ZodType>(
  schema: Schema,
  body: unknown,
): z.infer<Schema> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.join(".");
    const message =
      issue.code === "unrecognized_keys"
        ? // Field names are not echoed: a key pasted as a name must not come back.
          `${issue.keys.length} unknown field(s); check the field names`
        : issue.message;
    return path === "" ? message : `${path}: ${message}`;
  });
  throw new WorkerError({
    status: 400,
    code: "invalid_body",
    message: `Invalid request body: ${problems.join("; ")}.`,
  });
}
