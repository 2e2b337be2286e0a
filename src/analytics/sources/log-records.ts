/**
 * @module
 * Gateway log records as calls. The gateway keeps one record per step tried, so a call that fell
 * back is two records or more; they share the call's event id (`event_id`, from the
 * `cf-aig-event-id` the thin client sends on every request of a call), else the gateway's request
 * id (`request_id`). A call's records are joined on the event id within the app that made it
 * (metadata `app`, when the records carry one). {@link recordsToCall} turns one call's records
 * into one `CallEvent`, the same call the client's own event describes, however the client
 * re-sent or reordered its chain:
 *
 * - The records are split into the call's requests (attempts): each request that re-sent or
 *   reordered the chain names its place in the route in the `stepwise` metadata entry
 *   (`src/wire/attempt-place.ts`: attempt number, the route step of each step sent, ms elapsed
 *   before it); a request without one is a first, in-order request. Requests without a place are
 *   told apart by `request_id`. The last request (highest attempt, then latest) is the call's
 *   answer: a success there served the call; earlier successes were answers the client dropped
 *   (a cut or stalled stream, a rejected answer).
 * - step: the serving record's `step` mapped through its request's place to the route's step (a
 *   record without `step` counts as its request's position 0); null when no step served;
 * - time: the earliest `created_at`; id: the event id; logId: the serving record's `id`;
 * - provider, model, status: the serving record, else the last request's last record tried;
 * - ok: the last request has a success; errorCode: `http_<status>` (or `failed`) when not;
 * - latencyMs: the whole call, first request's start to the answer's end: the last request's
 *   `elapsed` (else its start after the first request's) plus its longest `duration` (each
 *   record's runs from its request's arrival);
 * - tokens and cost: the serving record's (the answer kept; null when it did not know them or
 *   no step served); `failedAttemptsCost`: what every other record cost (absent when none did);
 * - cacheStatus: HIT when the serving record came from the cache, else MISS;
 * - attempts: the requests of the call; failedSteps: each failed record, in the order tried,
 *   as route steps, with its status (`log-failure-reasons.ts`); route and mode: metadata
 *   `route` / `mode` (else `unknown`, `universal`), and every metadata entry but `stepwise` is
 *   kept for `--by metadata.<key>`.
 */
import * as z from "zod";
import type { FailedStep } from "../../client/event.ts";
import { type AttemptPlace, attemptPlaceKey, parseAttemptPlace } from "../../wire/attempt-place.ts";
import type { AnalyticsEvent } from "../dimensions.ts";
import { failedStepOfRecord } from "./log-failure-reasons.ts";

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

/**
 * The key that joins a call's records: the app (metadata `app`, when there is one) and the event
 * id, else the request id, else the record's own id.
 */
export function callKeyOf(log: GatewayLog): string {
  const call = log.event_id || log.request_id || log.id;
  const app = log.metadata?.includes('"app"') ? parseMetadata(log.metadata).app : undefined;
  return app === undefined ? call : `${app}\u0000${call}`;
}

/** One request of a call: its records and its place in the route. */
interface CallRequest {
  readonly place: AttemptPlace | null;
  readonly start: number;
  readonly records: GatewayLog[];
}

/** One call from its records (any order). See the module doc. */
export function recordsToCall(records: readonly GatewayLog[], gatewayId: string): AnalyticsEvent {
  if (records.length === 0) throw new RangeError("a call has at least one log record");
  const requests = requestsOf(records);
  const first = requests[0]!.records[0]!;
  const last = requests.at(-1)!;
  const served = last.records.find((log) => log.success);
  const final = served ?? last.records.at(-1)!;
  const { [attemptPlaceKey]: _place, ...metadata } = parseMetadata(first.metadata);
  const status = final.status_code ?? (served ? 200 : 0);
  const start = Math.min(...requests.map((request) => request.start));
  const elapsed = last.place?.elapsedMs ?? last.start - start;
  const failedSteps: FailedStep[] = [];
  let failedCost: number | null = null;
  for (const request of requests) {
    for (const log of request.records) {
      if (log === served) continue;
      if (log.cost !== undefined) failedCost = (failedCost ?? 0) + log.cost;
      const step = routeStep(request, log);
      if (!log.success && step !== null) {
        failedSteps.push(failedStepOfRecord(log, step));
      }
    }
  }
  const mode = metadata.mode;
  const event: AnalyticsEvent = {
    time: new Date(start).toISOString(),
    id: first.event_id || first.request_id || first.id,
    gateway: gatewayId,
    route: metadata.route ? metadata.route : "unknown",
    mode: mode === "dynamic" || mode === "fetch" ? mode : "universal",
    step: served ? routeStep(last, served) : null,
    provider: final.provider || null,
    model: final.model || null,
    status,
    ok: served !== undefined,
    cacheStatus: served?.cached ? "HIT" : "MISS",
    latencyMs: elapsed + Math.max(...last.records.map((log) => log.duration)),
    tokensIn: served?.tokens_in ?? null,
    tokensOut: served?.tokens_out ?? null,
    cost: served?.cost ?? null,
    errorCode: served ? null : final.status_code ? `http_${final.status_code}` : "failed",
    logId: final.id,
    attempts: Math.max(requests.length, last.place?.attempt ?? 1),
    streamed: final.response_content_type?.includes("event-stream") ?? false,
    metadata,
  };
  if (failedCost !== null) event.failedAttemptsCost = failedCost;
  if (failedSteps.length > 0) event.failedSteps = failedSteps;
  return event;
}

/** Maps a single record to an event, as if it were a whole call. */
export function logToEvent(log: GatewayLog, gatewayId: string): AnalyticsEvent {
  return recordsToCall([log], gatewayId);
}

/**
 * A call's records split into its requests, in the order sent (attempt, then start), each
 * request's records in the order its steps were tried.
 */
function requestsOf(records: readonly GatewayLog[]): CallRequest[] {
  const requests = new Map<string, CallRequest>();
  for (const log of records) {
    const text = log.metadata?.includes(attemptPlaceKey)
      ? parseMetadata(log.metadata)[attemptPlaceKey]
      : undefined;
    const place = parseAttemptPlace(text);
    const key = place ? `attempt ${place.attempt} ${text}` : `request ${log.request_id ?? ""}`;
    const time = Date.parse(log.created_at);
    const request = requests.get(key);
    if (request === undefined) requests.set(key, { place, start: time, records: [log] });
    else {
      request.records.push(log);
      if (time < request.start) (request as { start: number }).start = time;
    }
  }
  const ordered = [...requests.values()].sort(
    (a, b) => (a.place?.attempt ?? 1) - (b.place?.attempt ?? 1) || a.start - b.start,
  );
  for (const request of ordered) {
    request.records.sort(
      (a, b) =>
        (a.step ?? 0) - (b.step ?? 0) || Date.parse(a.created_at) - Date.parse(b.created_at),
    );
  }
  return ordered;
}

/** The route step of a record: its request's position mapped through the request's place. */
function routeStep(request: CallRequest, log: GatewayLog): number | null {
  const position = log.step ?? 0;
  return request.place === null ? position : (request.place.steps[position] ?? null);
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
