/**
 * @module
 * The one zod schema the analytics reads `CallEvent` records with (one JSON object a line).
 * Its output type is exactly `CallEvent` (a type-level test holds it to that). Fields the
 * aggregation can live without default to their "unknown" value, so reduced records (for example
 * from the companion Worker) still read; unknown extra fields are dropped.
 */
import { z } from "zod";
import type { CallEvent } from "../client/event.ts";

const count = z.number().int().nonnegative();
const nullableCount = count.nullable().default(null);

/** Schema of one event line. `z.infer<typeof callEventSchema>` is `CallEvent`. */
export const callEventSchema = z.object({
  time: z.string().refine((value) => !Number.isNaN(Date.parse(value)), {
    message: "time must be an ISO-8601 date-time, e.g. 2026-05-01T12:00:00.000Z",
  }),
  id: z.string(),
  gateway: z.string().min(1),
  route: z.string().min(1),
  mode: z.enum(["universal", "dynamic", "fetch"]),
  step: count.nullable(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  status: count,
  ok: z.boolean(),
  cacheStatus: z.enum(["HIT", "MISS"]).nullable().default(null),
  latencyMs: z.number().nonnegative(),
  tokensIn: nullableCount,
  tokensOut: nullableCount,
  cost: z.number().nonnegative().nullable().default(null),
  errorCode: z.string().nullable().default(null),
  logId: z.string().nullable().default(null),
  attempts: count.default(1),
  streamed: z.boolean().default(false),
  rejectedSteps: z.array(count).optional(),
});

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
  const result = callEventSchema.safeParse(value);
  if (result.success) return { ok: true, event: result.data };
  const reason = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(record)"}: ${issue.message}`)
    .join("; ");
  return { ok: false, reason };
}
