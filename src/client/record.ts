/**
 * @module
 * The one `CallEvent` a call records, built from what the call learned (never from headers, so no
 * key or token can reach it). Only a client with a recorder needs it, so it loads with the first
 * call of one (`call.ts`).
 */

import type { CallContext } from "./call.ts";
import type { RouteEntry } from "./client.ts";
import type { CallEvent } from "./event.ts";
import type { ChatResponse } from "./types.ts";

/** What the call knows beyond its context when it ends. */
export interface CallFacts {
  readonly id: string;
  readonly startedAt: number;
  readonly latencyMs: number;
  readonly route: string;
  readonly mode: string;
  /** The answer, when the call succeeded. */
  readonly response: ChatResponse | undefined;
  /** What the call threw, when it failed. */
  readonly error: unknown;
  readonly status: number;
  readonly cacheStatus: "HIT" | "MISS" | null;
  readonly logId: string | null;
  /** The last step the call heard from, for a failed call's provider and model. */
  readonly lastEntry: RouteEntry | undefined;
}

/** The call's event. */
export function callEvent(call: CallContext, facts: CallFacts): CallEvent {
  const { response, lastEntry } = facts;
  const served = response?.served;
  const code = (facts.error as { code?: unknown } | null)?.code;
  const { trials, rejections, streamer } = call;
  const event: CallEvent = {
    time: new Date(facts.startedAt).toISOString(),
    id: facts.id,
    gateway: call.client.gatewayId,
    route: String(facts.route),
    mode: facts.mode as CallEvent["mode"],
    step: served?.index ?? null,
    provider: served ? served.provider : (lastEntry?.provider ?? null),
    model: served ? (served.model ?? served.responseModel) : (lastEntry?.model ?? null),
    status: facts.status,
    ok: response !== undefined,
    cacheStatus: facts.cacheStatus,
    latencyMs: facts.latencyMs,
    tokensIn: response?.usage.tokensIn ?? null,
    tokensOut: response?.usage.tokensOut ?? null,
    cost: response?.cost ?? null,
    errorCode: response ? null : typeof code === "string" ? code : "unexpected_error",
    logId: facts.logId,
    attempts: call.attempts,
    streamed: streamer !== undefined,
  };
  if (rejections.length > 0) {
    event.rejectedSteps = rejections.flatMap(({ index }) => (index === null ? [] : [index]));
  }
  if (trials.length > 0) {
    event.failedSteps = trials.map(({ entry, status, error, at }) => ({
      step: entry.index,
      provider: entry.provider,
      model: entry.model,
      status,
      errorCode: error?.code ?? null,
      at,
    }));
  }
  if (streamer?.discarded) event.discardedChars = streamer.discarded;
  return event;
}
