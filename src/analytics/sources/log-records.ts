/**
 * @module
 * Gateway log records as calls. The gateway keeps one record per step tried, so a call that fell
 * back is two records or more; they share the call's event id (`event_id`, from the
 * `cf-aig-event-id` the thin client sends on every call), else the gateway's request id
 * (`request_id`). {@link recordsToCall} turns one call's records into one `CallEvent`:
 *
 * - time: the earliest `created_at`; id: the event id; logId: the serving record's `id`;
 * - step, provider, model, status: the record that succeeded (`success`), else the last one tried
 *   (step null: no step served); a record without `step` counts as step 0;
 * - ok: a record succeeded; errorCode: `http_<status>` (or `failed`) when none did;
 * - latencyMs: the longest `duration` (each record's runs from the request's arrival);
 * - tokens and cost: summed over the records (null when no record knew them);
 * - cacheStatus: HIT when the serving record came from the cache, else MISS;
 * - attempts: the number of records; route and mode: metadata `route` / `mode` (else `unknown`,
 *   `universal`), and every metadata entry is kept for `--by metadata.<key>`;
 * - failedSteps: the records that did not succeed, with their status (`log-failure-reasons.ts`).
 */
import * as z from "zod";
import type { AnalyticsEvent } from "../dimensions.ts";
import { failedStepsOfRecords } from "./log-failure-reasons.ts";

/** Shape of one log record as the analytics needs it (SDK `LogListResponse`, plus ids). */
export const gatewayLogSchema = z.object({
  id: z.string(),
  created_at: z.string().refine((value) => !Number.isNaN(Date.parse(value)), "not a date-time"),
  provider: z.string(),
  model: z.string(),
  duration: z.number().nonnegative(),
  success: z.boolean(),
  cached: z.boolean(),
  status_code: z.number().int().nonnegative().optional(),
  tokens_in: z.number().int().nonnegative().nullable(),
  tokens_out: z.number().int().nonnegative().nullable(),
  cost: z.number().nonnegative().optional(),
  step: z.number().int().nonnegative().optional(),
  metadata: z.string().optional(),
  response_content_type: z.string().optional(),
  event_id: z.string().optional(),
  request_id: z.string().optional(),
});

export type GatewayLog = z.infer<typeof gatewayLogSchema>;

/** The key that joins a call's records: event id, else request id, else the record's own id. */
export function callKeyOf(log: GatewayLog): string {
  return log.event_id || log.request_id || log.id;
}

/** One call from its records (any order). See the module doc. */
export function recordsToCall(records: readonly GatewayLog[], gatewayId: string): AnalyticsEvent {
  const ordered = [...records].sort(
    (a, b) => (a.step ?? 0) - (b.step ?? 0) || Date.parse(a.created_at) - Date.parse(b.created_at),
  );
  const first = ordered[0];
  if (first === undefined) throw new RangeError("a call has at least one log record");
  const served = ordered.find((log) => log.success);
  const final = served ?? ordered.at(-1) ?? first;
  const metadata = parseMetadata(first.metadata);
  const status = final.status_code ?? (served ? 200 : 0);
  const sum = (values: ReadonlyArray<number | null | undefined>) =>
    values.some((value) => typeof value === "number")
      ? values.reduce<number>((total, value) => total + (value ?? 0), 0)
      : null;
  const mode = metadata.mode;
  return {
    time: new Date(Math.min(...ordered.map((log) => Date.parse(log.created_at)))).toISOString(),
    id: callKeyOf(first),
    gateway: gatewayId,
    route: metadata.route ? metadata.route : "unknown",
    mode: mode === "dynamic" || mode === "fetch" ? mode : "universal",
    step: served ? (served.step ?? 0) : null,
    provider: final.provider || null,
    model: final.model || null,
    status,
    ok: served !== undefined,
    cacheStatus: served?.cached ? "HIT" : "MISS",
    latencyMs: Math.max(...ordered.map((log) => log.duration)),
    tokensIn: sum(ordered.map((log) => log.tokens_in)),
    tokensOut: sum(ordered.map((log) => log.tokens_out)),
    cost: sum(ordered.map((log) => log.cost)),
    errorCode: served ? null : final.status_code ? `http_${final.status_code}` : "failed",
    logId: final.id,
    attempts: ordered.length,
    streamed: final.response_content_type?.includes("event-stream") ?? false,
    metadata,
    ...failedStepsOfRecords(ordered),
  };
}

/** Maps a single record to an event, as if it were a whole call. */
export function logToEvent(log: GatewayLog, gatewayId: string): AnalyticsEvent {
  return recordsToCall([log], gatewayId);
}

function parseMetadata(text: string | undefined): Record<string, string> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
    const entries: Array<[string, string]> = [];
    for (const [key, entry] of Object.entries(value)) {
      if (typeof entry === "string" || typeof entry === "number" || typeof entry === "boolean") {
        entries.push([key, String(entry)]);
      }
    }
    return Object.fromEntries(entries);
  } catch {
    return {};
  }
}
