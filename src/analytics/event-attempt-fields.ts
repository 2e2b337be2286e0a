/**
 * @module
 * What happened on a call's way to its answer, read both ways the event schema reads a record
 * (the plain-code reader and the zod schemas accept exactly the same records): `failedSteps`,
 * `discardedChars`, `failedAttemptsCost`, `skippedSteps` and `demotedSteps` (the client's guards),
 * and `hedges`.
 */
import type { z as Zod } from "zod";
import type { CallEvent } from "../client/event.ts";
import { eventLimits, isCount, isName } from "./event-limits.ts";

/** Where a failed step broke (`FailedStep.at`). */
const failedAt = ["request", "stream", "mid-stream", "answer"] as const;

/** Which answer a hedged attempt kept, and why a hedge was not sent (`HedgeRecord`). */
const hedgeKept = ["primary", "hedge", "none"] as const;
const hedgeNotSent = ["cost_cap", "unpriced"] as const;

/** The zod schemas of the fields, for the event schema. */
export function attemptFieldSchemas(z: typeof Zod) {
  const count = (max: number) => z.number().int().nonnegative().max(max);
  const name = z.string().max(eventLimits.maxNameLength);
  const steeredSteps = z
    .array(
      z.object({ step: count(eventLimits.maxStep), provider: name, model: name, reason: name }),
    )
    .max(100);
  return {
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
    failedAttemptsCost: z.number().nonnegative().max(eventLimits.maxCost).optional(),
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
  };
}

/**
 * Reads the fields off a record onto `event`; false when one is present and not valid (the
 * record is then not an event, or zod says why).
 */
export function readAttemptFields(record: Record<string, unknown>, event: CallEvent): boolean {
  const { failedSteps, discardedChars, failedAttemptsCost } = record;
  if (failedSteps !== undefined) {
    if (!Array.isArray(failedSteps) || failedSteps.length > 100) return false;
    const read: NonNullable<CallEvent["failedSteps"]>[number][] = [];
    for (const entry of failedSteps) {
      const failed = readFailedStep(entry);
      if (failed === null) return false;
      read.push(failed);
    }
    event.failedSteps = read;
  }
  if (discardedChars !== undefined) {
    if (!isCount(discardedChars, eventLimits.maxTokens)) return false;
    event.discardedChars = discardedChars;
  }
  if (failedAttemptsCost !== undefined) {
    if (
      typeof failedAttemptsCost !== "number" ||
      !(failedAttemptsCost >= 0 && failedAttemptsCost <= eventLimits.maxCost)
    ) {
      return false;
    }
    event.failedAttemptsCost = failedAttemptsCost;
  }
  for (const field of ["skippedSteps", "demotedSteps"] as const) {
    if (record[field] === undefined) continue;
    const list = readList(record[field], readSteeredStep);
    if (list === null) return false;
    event[field] = list;
  }
  if (record.hedges !== undefined) {
    const hedges = readList(record.hedges, readHedge);
    if (hedges === null) return false;
    event.hedges = hedges;
  }
  return true;
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
