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
 */
import { createRequire } from "node:module";
import type { z as Zod } from "zod";
import type { CallEvent } from "../client/event.ts";
import { policyFieldSchemas, readPolicyFields } from "./policy-fields.ts";

/** Where a failed step broke (`FailedStep.at`). */
const failedAt = ["request", "stream", "mid-stream", "answer"] as const;

/** Which answer a hedged attempt kept, and why a hedge was not sent (`HedgeRecord`). */
const hedgeKept = ["primary", "hedge", "none"] as const;
const hedgeNotSent = ["cost_cap", "unpriced"] as const;

/** The sane ranges of an event's values. */
export const eventLimits = {
  /** 2000-01-01T00:00:00Z (inclusive) … 2200-01-01T00:00:00Z (exclusive). */
  minTime: Date.UTC(2000, 0, 1),
  maxTime: Date.UTC(2200, 0, 1),
  maxNameLength: 256,
  maxIdLength: 512,
  maxStep: 999,
  maxStatus: 999,
  maxLatencyMs: 86_400_000,
  maxTokens: 10_000_000_000,
  maxCost: 1_000_000,
  maxAttempts: 1_000,
} as const;

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
  const steeredSteps = z
    .array(
      z.object({ step: count(eventLimits.maxStep), provider: name, model: name, reason: name }),
    )
    .max(100);
  return z.object({
    time: z.string().refine((value) => eventTime(value) !== null, {
      message:
        "time must be an ISO-8601 date-time from 2000 to 2199, e.g. 2026-05-01T12:00:00.000Z",
    }),
    id: z.string().max(eventLimits.maxIdLength),
    gateway: name.min(1),
    route: name.min(1),
    mode: z.enum(["universal", "dynamic", "fetch"]),
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
    failedSteps: z
      .array(
        z.object({
          step: count(eventLimits.maxStep),
          provider: name,
          model: name,
          status: count(eventLimits.maxStatus).nullable(),
          errorCode: name.nullable(),
          at: z.enum(failedAt),
        }),
      )
      .max(100)
      .optional(),
    discardedChars: count(eventLimits.maxTokens).optional(),
    skippedSteps: steeredSteps.optional(),
    demotedSteps: steeredSteps.optional(),
    hedges: z
      .array(
        z.object({
          step: count(eventLimits.maxStep),
          provider: name,
          model: name,
          afterMs: count(eventLimits.maxLatencyMs),
          sent: z.boolean(),
          reason: z.enum(hedgeNotSent).optional(),
          kept: z.enum(hedgeKept),
          extraCost: z.number().nonnegative().max(eventLimits.maxCost),
        }),
      )
      .max(100)
      .optional(),
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

/**
 * Epoch ms of an event time, or null when it is not a date-time in the sane range. The client's
 * own format (`2026-05-01T12:00:00.000Z`) is read without `Date.parse`.
 */
export function eventTime(text: string): number | null {
  let time: number;
  if (text.length === 24 && text.charCodeAt(23) === 90 /* Z */ && text.charCodeAt(10) === 84) {
    time = canonicalTime(text);
  } else {
    time = Date.parse(text);
  }
  return time >= eventLimits.minTime && time < eventLimits.maxTime ? time : null;
}

/** `YYYY-MM-DDTHH:MM:SS.sssZ` → epoch ms, NaN when a digit or separator is off. */
function canonicalTime(text: string): number {
  if (
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(19) !== 46
  ) {
    return Number.NaN;
  }
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59)) {
    return Number.NaN;
  }
  if (!(second <= 59)) return Number.NaN;
  const time = Date.UTC(
    digits(text, 0, 4),
    month - 1,
    day,
    hour,
    minute,
    second,
    digits(text, 20, 3),
  );
  // Date.UTC would roll 2026-02-30 over into March; Date.parse refuses it, and so does this.
  return day <= daysInMonth(digits(text, 0, 4), month) ? time : Number.NaN;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The decimal number in `text[from, from + length)`; NaN when a character is not a digit. */
function digits(text: string, from: number, length: number): number {
  let value = 0;
  for (let index = from; index < from + length; index += 1) {
    const code = text.charCodeAt(index) - 48;
    if (code < 0 || code > 9) return Number.NaN;
    value = value * 10 + code;
  }
  return value;
}

/** The plain-code check of a record (see the module doc): the event, or null to ask zod. */
function readEvent(value: unknown): CallEvent | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const { time, id, gateway, route, mode, step, provider, model, status, ok, latencyMs } = record;
  if (typeof time !== "string" || eventTime(time) === null) return null;
  if (typeof id !== "string" || id.length > eventLimits.maxIdLength) return null;
  if (!isName(gateway) || gateway === "" || !isName(route) || route === "") return null;
  if (mode !== "universal" && mode !== "dynamic" && mode !== "fetch") return null;
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
  const { failedSteps, discardedChars } = record;
  if (failedSteps !== undefined) {
    if (!Array.isArray(failedSteps) || failedSteps.length > 100) return null;
    const read: NonNullable<CallEvent["failedSteps"]>[number][] = [];
    for (const entry of failedSteps) {
      const failed = readFailedStep(entry);
      if (failed === null) return null;
      read.push(failed);
    }
    event.failedSteps = read;
  }
  if (discardedChars !== undefined) {
    if (!isCount(discardedChars, eventLimits.maxTokens)) return null;
    event.discardedChars = discardedChars;
  }
  for (const field of ["skippedSteps", "demotedSteps"] as const) {
    if (record[field] === undefined) continue;
    const list = readList(record[field], readSteeredStep);
    if (list === null) return null;
    event[field] = list;
  }
  if (record.hedges !== undefined) {
    const hedges = readList(record.hedges, readHedge);
    if (hedges === null) return null;
    event.hedges = hedges;
  }
  return readPolicyFields(record, event) ? event : null;
}

/** One `failedSteps` entry, or null to ask zod. */
function readFailedStep(value: unknown): NonNullable<CallEvent["failedSteps"]>[number] | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { step, provider, model, status, errorCode, at } = value as Record<string, unknown>;
  if (!isCount(step, eventLimits.maxStep) || !isName(provider) || !isName(model)) return null;
  if (status !== null && !isCount(status, eventLimits.maxStatus)) return null;
  if (errorCode !== null && !isName(errorCode)) return null;
  if (!failedAt.includes(at as (typeof failedAt)[number])) return null;
  return {
    step,
    provider,
    model,
    status: status as number | null,
    errorCode: errorCode as string | null,
    at: at as (typeof failedAt)[number],
  };
}

/** A list of at most 100 entries each `read` accepts, or null to ask zod. */
function readList<Entry>(value: unknown, read: (entry: unknown) => Entry | null): Entry[] | null {
  if (!Array.isArray(value) || value.length > 100) return null;
  const list: Entry[] = [];
  for (const entry of value) {
    const item = read(entry);
    if (item === null) return null;
    list.push(item);
  }
  return list;
}

/** One `skippedSteps` / `demotedSteps` entry, or null to ask zod. */
function readSteeredStep(value: unknown): NonNullable<CallEvent["skippedSteps"]>[number] | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { step, provider, model, reason } = value as Record<string, unknown>;
  if (!isCount(step, eventLimits.maxStep) || !isName(provider) || !isName(model)) return null;
  return isName(reason) ? { step, provider, model, reason } : null;
}

/** One `hedges` entry, or null to ask zod. */
function readHedge(value: unknown): NonNullable<CallEvent["hedges"]>[number] | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { step, provider, model, afterMs, sent, reason, kept, extraCost } = value as Record<
    string,
    unknown
  >;
  if (!isCount(step, eventLimits.maxStep) || !isName(provider) || !isName(model)) return null;
  if (!isCount(afterMs, eventLimits.maxLatencyMs) || typeof sent !== "boolean") return null;
  if (!hedgeKept.includes(kept as (typeof hedgeKept)[number])) return null;
  if (reason !== undefined && !hedgeNotSent.includes(reason as (typeof hedgeNotSent)[number]))
    return null;
  if (!(typeof extraCost === "number" && extraCost >= 0 && extraCost <= eventLimits.maxCost))
    return null;
  const hedge: NonNullable<CallEvent["hedges"]>[number] = {
    step,
    provider,
    model,
    afterMs,
    sent,
    kept: kept as (typeof hedgeKept)[number],
    extraCost,
  };
  if (reason !== undefined) hedge.reason = reason as (typeof hedgeNotSent)[number];
  return hedge;
}

function isName(value: unknown): value is string {
  return typeof value === "string" && value.length <= eventLimits.maxNameLength;
}

function isCount(value: unknown, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= max;
}
