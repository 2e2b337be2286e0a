/**
 * @module
 * The Analytics Engine point the companion Worker writes for a call, made from the client's event
 * of the same call (what the Worker knows: no client-side retries or stream details), so tests can
 * feed the same traffic to the events-file path and to the SQL path.
 */
import type { CallEvent } from "../../src/client/event.ts";
import type { CallPoint } from "../../src/worker/analytics-schema.ts";

export function callPointOf(
  event: CallEvent,
  metadata: Readonly<Record<string, string>> = {},
): CallPoint {
  return {
    gateway: event.gateway,
    route: event.route,
    provider: event.provider,
    model: event.model,
    errorCode: event.errorCode,
    cacheStatus: event.cacheStatus,
    app: "app_test",
    mode: event.mode === "dynamic" ? "dynamic" : "universal",
    keySource: "current",
    eventId: event.id,
    metadata: { route: event.route, ...metadata },
    step: event.step,
    status: event.status,
    latencyMs: event.latencyMs,
    ok: event.ok,
    tokensIn: event.tokensIn,
    tokensOut: event.tokensOut,
    cost: event.cost,
  };
}

/** The event as Analytics Engine keeps it: whole-second time, whole-ms latency. */
export function asStored(event: CallEvent): CallEvent {
  const time = Math.floor(Date.parse(event.time) / 1000) * 1000;
  return { ...event, time: new Date(time).toISOString(), latencyMs: Math.round(event.latencyMs) };
}
