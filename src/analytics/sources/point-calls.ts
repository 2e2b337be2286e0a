/**
 * @module
 * Analytics Engine rows as calls. The companion Worker writes one point per request, and a call
 * the client re-sent (a cut stream, a refusal, a rejected answer) is several points with the
 * same app and event id, numbered by attempt (`double9`). {@link PointCalls} folds them into one
 * event per call, as the report's SQL does with `argMax`: the last attempt's step, status,
 * tokens, cost and latency (counted from the call's start), the first attempt's time, and what
 * the other attempts cost as `failedAttemptsCost`. A call is handed on once the rows read have
 * moved {@link pointCallHorizonMs} past its last row (an export ordered by time folds exactly);
 * a row without an event id is a call of its own.
 */
import type { CallEvent } from "../../client/event.ts";

/** How far past a call's last row the rows read go before the call is complete (5 minutes). */
export const pointCallHorizonMs = 300_000;

/** One decoded row: its event, the calls it stands for, its app and attempt. */
export interface PointRow {
  readonly event: CallEvent;
  readonly weight: number;
  readonly app: string;
  readonly attempt: number;
}

interface OpenCall {
  last: PointRow;
  first: number;
  lastSeen: number;
  otherCost: number | null;
}

/** Folds rows into calls; see the module doc. */
export class PointCalls {
  readonly #open = new Map<string, OpenCall>();

  /** Adds a row; returns the calls it completed (rows without an event id at once). */
  add(row: PointRow, eventId: string | null): PointRow[] {
    const time = Date.parse(row.event.time);
    const done: PointRow[] = [];
    for (const [key, call] of this.#open) {
      if (call.lastSeen >= time - pointCallHorizonMs) break;
      this.#open.delete(key);
      done.push(callOf(call));
    }
    if (eventId === null) {
      done.push(row);
      return done;
    }
    const key = `${row.app}\u0000${eventId}`;
    const call = this.#open.get(key);
    if (call === undefined) {
      this.#open.set(key, { last: row, first: time, lastSeen: time, otherCost: null });
      return done;
    }
    // The last attempt; of a hedge and the request it raced (one attempt), the ok one.
    const rank = (point: PointRow) => point.attempt * 2 + (point.event.ok ? 1 : 0);
    const [kept, other] = rank(row) >= rank(call.last) ? [row, call.last] : [call.last, row];
    if (other.event.cost !== null) call.otherCost = (call.otherCost ?? 0) + other.event.cost;
    call.last = kept;
    call.first = Math.min(call.first, time);
    // Kept in the order calls were last seen, so the oldest is handed on first.
    this.#open.delete(key);
    call.lastSeen = Math.max(call.lastSeen, time);
    this.#open.set(key, call);
    return done;
  }

  /** The calls still open, at the end of the rows. */
  flush(): PointRow[] {
    const done = [...this.#open.values()].map(callOf);
    this.#open.clear();
    return done;
  }
}

function callOf(call: OpenCall): PointRow {
  const { last } = call;
  if (call.otherCost === null && Date.parse(last.event.time) === call.first) return last;
  const event: CallEvent = { ...last.event, time: new Date(call.first).toISOString() };
  event.attempts = Math.max(event.attempts, last.attempt);
  if (call.otherCost !== null) event.failedAttemptsCost = call.otherCost;
  return { ...last, event };
}
