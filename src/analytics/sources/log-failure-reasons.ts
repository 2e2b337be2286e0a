/**
 * @module
 * Why the steps of a call failed, read from the gateway's own records of it. The gateway keeps one
 * log record per step it tried, with the step's `status_code`, so a step it passed over on the way
 * to the answer has a reason in its logs even when the client's event holds none (`status` and
 * `errorCode` null: the gateway fell back inside one request and said nothing about the failed
 * step). {@link failedStepsOfRecords} turns the records that did not succeed into the event's
 * `failedSteps`, so every renderer shows their reasons (`failure-reasons.ts`) whichever source the
 * report read; {@link eventsWithLogReasons} gives the client's events the reasons the logs hold
 * (`stepwise report events.jsonl --reasons-from-logs`).
 */
import type { FailedStep } from "../../client/event.ts";
import type { EventSource } from "./types.ts";

/** The fields of a gateway log record (`log-records.ts`) this module reads. */
export interface LoggedStep {
  readonly provider: string;
  readonly model: string;
  readonly success: boolean;
  readonly status_code?: number | undefined;
  readonly step?: number | undefined;
  readonly response_content_type?: string | undefined;
}

/**
 * The failed steps of one call from its records, in the order tried (`records` ordered so), as
 * `{ failedSteps }` to spread onto the event; `{}` when every record succeeded. A failed record's
 * status is its `status_code` (null when the record has none), its code `http_<status>`, and
 * where it broke `stream` for a 2xx stream the gateway logged as failed, else `request`.
 */
export function failedStepsOfRecords(records: readonly LoggedStep[]): {
  failedSteps?: FailedStep[];
} {
  const failedSteps = records
    .filter((log) => !log.success)
    .map((log) => failedStepOfRecord(log, log.step ?? 0));
  return failedSteps.length > 0 ? { failedSteps } : {};
}

/**
 * One failed record as the failed step `step` of its call (the route's step: the logs source maps
 * a record's position through its request's place in the route).
 */
export function failedStepOfRecord(log: LoggedStep, step: number): FailedStep {
  return {
    step,
    provider: log.provider,
    model: log.model,
    status: log.status_code ?? null,
    errorCode: log.status_code ? `http_${log.status_code}` : null,
    at:
      log.status_code !== undefined &&
      log.status_code >= 200 &&
      log.status_code < 300 &&
      (log.response_content_type?.includes("event-stream") ?? false)
        ? "stream"
        : "request",
  };
}

/**
 * Fills the reasons of the steps an event lists without one (`status` and `errorCode` null) from
 * the failed steps the gateway's logs hold for the same call (matched by step, provider and model,
 * else by provider and model). Returns the event unchanged when it lists no such step or the logs
 * hold nothing to add.
 */
export function withLogReasons<Event extends { failedSteps?: FailedStep[] }>(
  event: Event,
  fromLogs: readonly FailedStep[],
): Event {
  const listed = event.failedSteps;
  if (listed === undefined || fromLogs.length === 0 || !listed.some(isWithoutDetail)) return event;
  const used = new Set<FailedStep>();
  const failedSteps = listed.map((step) => {
    if (!isWithoutDetail(step)) return step;
    const match =
      fromLogs.find(
        (log) =>
          !used.has(log) &&
          log.step === step.step &&
          log.provider === step.provider &&
          log.model === step.model,
      ) ??
      fromLogs.find(
        (log) => !used.has(log) && log.provider === step.provider && log.model === step.model,
      );
    if (match === undefined || match.status === null) return step;
    used.add(match);
    return { ...step, status: match.status, errorCode: match.errorCode };
  });
  return { ...event, failedSteps };
}

/**
 * The client's events with the reasons the gateway's logs hold for steps the events list without
 * one. The logs are read first and only the failed steps of their calls are kept (keyed by the
 * call's event id, which is the client event's `id`), so memory grows with the failures, not the
 * calls; then the events stream through.
 */
export function eventsWithLogReasons(events: EventSource, logs: EventSource): EventSource {
  return {
    kind: events.kind,
    name: `${events.name} + reasons from ${logs.name}`,
    stats: events.stats,
    async *events() {
      const failures = new Map<string, FailedStep[]>();
      for await (const call of logs.events()) {
        if (call.failedSteps?.length) failures.set(call.id, call.failedSteps);
      }
      for await (const event of events.events()) {
        const fromLogs = failures.get(event.id);
        yield fromLogs === undefined ? event : withLogReasons(event, fromLogs);
      }
    },
  };
}

function isWithoutDetail(step: FailedStep): boolean {
  return step.status === null && step.errorCode === null;
}
