/**
 * @module
 * The one zod schema the analytics reads `CallEvent` records with (one JSON object a line).
 * Its output type is exactly `CallEvent` (a type-level test holds it to that). Fields the
 * aggregation can live without default to their "unknown" value, so reduced records (for example
 * from the companion Worker) still read; unknown extra fields are dropped.
 *
 * Values must lie in sane ranges ({@link eventLimits}): a time from 2000 to 2199, names of at most
 * 256 characters, a step and status below 1,000, a latency of at most a day, tokens up to 10¹⁰ and
 * a cost up to $1,000,000 per call. A record outside them is malformed (counted and skipped), so
 * one absurd line cannot skew a report or crash it.
 *
 * Hot path: {@link parseEventValue} first checks a record with plain code that accepts exactly
 * what the schema accepts (a test holds the two to the same answers); only a record it refuses
 * goes through zod, for the message.
 *
 * The fields are read by concern: the ranges and name/count checks (`event-limits.ts`), the time
 * (`event-time.ts`), what happened on the way to the answer (`event-attempt-fields.ts`: failed,
 * skipped and demoted steps, discarded text, hedges) and the routing policy (`policy-fields.ts`).
 */
import { createRequire } from "node:module";
import type { z as Zod } from "zod";
import type { CallEvent } from "../client/event.ts";
import { attemptFieldSchemas, readAttemptFields } from "./event-attempt-fields.ts";
import { eventLimits, isCount, isName } from "./event-limits.ts";
import { eventTime } from "./event-time.ts";
import { policyFieldSchemas, readPolicyFields } from "./policy-fields.ts";

/**
 * The zod schema of one event line; `z.infer<ReturnType<typeof callEventSchema>>` is `CallEvent`.
 * Built (and zod loaded, about 0.3 s) on first use: valid lines never need it.
 */
export function callEventSchema() {
  builtSchema ??= buildSchema((createRequire(import.meta.url)("zod") as { z: typeof Zod }).z);
  return builtSchema;
}

let builtSchema: ReturnType<typeof buildSchema> | undefined;

function buildSchema(z: typeof Zod) {
  const count = (max: number) => z.number().int().nonnegative().max(max);
  const nullableCount = count(eventLimits.maxTokens).nullable().default(null);
  const name = z.string().max(eventLimits.maxNameLength);
  return z.object({
    time: z.string().refine((value) => eventTime(value) !== null, {
      message:
        "time must be an ISO-8601 date-time from 2000 to 2199, e.g. 2026-05-01T12:00:00.000Z",
    }),
    id: z.string().max(eventLimits.maxIdLength),
    gateway: name.min(1),
    route: name.min(1),
    mode: z.enum(["universal", "dynamic", "rest", "fetch"]),
    endpoint: z.enum(["universal", "compat", "provider", "rest"]).optional(),
    step: count(eventLimits.maxStep).nullable(),
    provider: name.nullable(),
    model: name.nullable(),
    status: count(eventLimits.maxStatus),
    ok: z.boolean(),
    cacheStatus: z.enum(["HIT", "MISS"]).nullable().default(null),
    latencyMs: z.number().nonnegative().max(eventLimits.maxLatencyMs),
    tokensIn: nullableCount,
    tokensOut: nullableCount,
    cost: z.number().nonnegative().max(eventLimits.maxCost).nullable().default(null),
    errorCode: name.nullable().default(null),
    logId: z.string().max(eventLimits.maxIdLength).nullable().default(null),
    attempts: count(eventLimits.maxAttempts).default(1),
    streamed: z.boolean().default(false),
    rejectedSteps: z.array(count(eventLimits.maxStep)).max(100).optional(),
    ...policyFieldSchemas(z),
    ...attemptFieldSchemas(z),
  });
}

/** The result of reading one line: the event, or why the line was rejected. */
export type ParsedEventLine =
  | { readonly ok: true; readonly event: CallEvent }
  | { readonly ok: false; readonly reason: string };

/** Parses and validates one JSON line. Never throws. */
export function parseEventLine(line: string): ParsedEventLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, reason: `not JSON (${(error as Error).message})` };
  }
  return parseEventValue(value);
}

/** Validates one already-parsed value. Never throws. */
export function parseEventValue(value: unknown): ParsedEventLine {
  const fast = readEvent(value);
  if (fast !== null) return { ok: true, event: fast };
  const result = callEventSchema().safeParse(value);
  if (result.success) return { ok: true, event: result.data };
  const reason = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(record)"}: ${issue.message}`)
    .join("; ");
  return { ok: false, reason };
}

/** The plain-code check of a record (see the module doc): the event, or null to ask zod. */
function readEvent(value: unknown): CallEvent | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const { time, id, gateway, route, mode, step, provider, model, status, ok, latencyMs } = record;
  if (typeof time !== "string" || eventTime(time) === null) return null;
  if (typeof id !== "string" || id.length > eventLimits.maxIdLength) return null;
  if (!isName(gateway) || gateway === "" || !isName(route) || route === "") return null;
  if (mode !== "universal" && mode !== "dynamic" && mode !== "rest" && mode !== "fetch")
    return null;
  if (step !== null && !isCount(step, eventLimits.maxStep)) return null;
  if ((provider !== null && !isName(provider)) || (model !== null && !isName(model))) return null;
  if (!isCount(status, eventLimits.maxStatus) || typeof ok !== "boolean") return null;
  if (typeof latencyMs !== "number" || !(latencyMs >= 0 && latencyMs <= eventLimits.maxLatencyMs))
    return null;
  const cacheStatus = record.cacheStatus ?? null;
  if (cacheStatus !== null && cacheStatus !== "HIT" && cacheStatus !== "MISS") return null;
  const tokensIn = record.tokensIn ?? null;
  const tokensOut = record.tokensOut ?? null;
  if (tokensIn !== null && !isCount(tokensIn, eventLimits.maxTokens)) return null;
  if (tokensOut !== null && !isCount(tokensOut, eventLimits.maxTokens)) return null;
  const cost = record.cost ?? null;
  if (cost !== null && !(typeof cost === "number" && cost >= 0 && cost <= eventLimits.maxCost))
    return null;
  const errorCode = record.errorCode ?? null;
  if (errorCode !== null && !isName(errorCode)) return null;
  const logId = record.logId ?? null;
  if (logId !== null && !(typeof logId === "string" && logId.length <= eventLimits.maxIdLength))
    return null;
  // Defaults apply to a missing field only: zod refuses null where the field is not nullable.
  const attempts = record.attempts === undefined ? 1 : record.attempts;
  if (!isCount(attempts, eventLimits.maxAttempts)) return null;
  const streamed = record.streamed === undefined ? false : record.streamed;
  if (typeof streamed !== "boolean") return null;
  const rejectedSteps = record.rejectedSteps;
  const endpoint = record.endpoint;
  if (
    endpoint !== undefined &&
    endpoint !== "universal" &&
    endpoint !== "compat" &&
    endpoint !== "provider" &&
    endpoint !== "rest"
  )
    return null;
  const event: CallEvent = {
    time,
    id,
    gateway: gateway as string,
    route: route as string,
    mode,
    step: step as number | null,
    provider: provider as string | null,
    model: model as string | null,
    status: status as number,
    ok,
    cacheStatus,
    latencyMs,
    tokensIn: tokensIn as number | null,
    tokensOut: tokensOut as number | null,
    cost,
    errorCode: errorCode as string | null,
    logId,
    attempts: attempts as number,
    streamed,
  };
  if (endpoint !== undefined) event.endpoint = endpoint;
  if (rejectedSteps !== undefined) {
    if (
      !Array.isArray(rejectedSteps) ||
      rejectedSteps.length > 100 ||
      !rejectedSteps.every((entry) => isCount(entry, eventLimits.maxStep))
    ) {
      return null;
    }
    event.rejectedSteps = [...rejectedSteps] as number[];
  }
  if (!readAttemptFields(record, event)) return null;
  return readPolicyFields(record, event) ? event : null;
}
