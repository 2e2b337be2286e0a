/**
 * @module
 * A call's one event (`event.ts`), built when the call ends (`call.ts`) from what the call learned,
 * never from headers, so no key or token can reach it; and `callSafely`, which hands an event (or
 * a breaker's transition) to the app's recorder so that nothing the recorder does breaks the call.
 */

import type { CallState } from "./call-state.ts";
import type { CallEvent, SteeredStepRecord } from "./event.ts";
import type { ChatResponse } from "./types.ts";

/**
 * Runs a recorder method so that neither a throw nor a rejection escapes.
 * @internal
 */
export function callSafely(run: () => unknown, onError?: (error: unknown) => void): void {
  try {
    const outcome = run();
    if (outcome instanceof Promise) outcome.catch((error: unknown) => report(error, onError));
  } catch (error) {
    report(error, onError);
  }
}

function report(error: unknown, onError?: (error: unknown) => void): void {
  try {
    onError?.(error);
  } catch {
    // An error handler that throws is ignored too: recording never breaks a call.
  }
}

/** The ISO text of the last second an event started in (`2030-01-01T00:00:00`), and that second. */
let lastSecond = { second: Number.NaN, text: "" };

/**
 * `new Date(ms).toISOString()`, reusing the text of the second: building the whole string costs
 * about a tenth of a call's own work on Node 20.
 */
function isoTime(ms: number): string {
  // An injected clock may give fractions; years outside 0000–9999 have a longer form.
  if (!Number.isInteger(ms) || ms < 0 || ms >= 253402300800000) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond.second) {
    lastSecond = { second, text: new Date(second * 1000).toISOString().slice(0, 19) };
  }
  return `${lastSecond.text}.${String(ms - second * 1000).padStart(3, "0")}Z`;
}

/**
 * The call's one event, built from what the call learned (never from headers, so no key or
 * token can reach it).
 */
export function callEvent(
  call: CallState,
  response: ChatResponse | undefined,
  error: unknown,
): CallEvent {
  const { lastEntry, trials, rejections, streamer } = call;
  const served = response?.served;
  const code = (error as { code?: unknown } | null)?.code;
  const event: CallEvent = {
    time: isoTime(call.startedAt),
    id: call.id,
    gateway: call.client.gatewayId,
    route: String(call.options.route),
    mode: call.mode as CallEvent["mode"],
    step: served?.index ?? null,
    provider: served ? served.provider : (lastEntry?.provider ?? null),
    model: served ? (served.model ?? served.responseModel) : (lastEntry?.model ?? null),
    status: call.status,
    ok: response !== undefined,
    cacheStatus: call.cacheStatus,
    latencyMs: Math.max(0, call.now() - call.startedAt),
    tokensIn: response?.usage.tokensIn ?? null,
    tokensOut: response?.usage.tokensOut ?? null,
    cost: response?.cost ?? null,
    errorCode: response ? null : typeof code === "string" ? code : "unexpected_error",
    logId: call.logId,
    attempts: call.attempts,
    streamed: streamer !== undefined,
  };
  const { metadata, decision } = call;
  if (metadata !== undefined && Object.keys(metadata).length > 0) event.metadata = { ...metadata };
  if (decision !== undefined) {
    event.policy = { chain: decision.chain, rule: decision.rule };
    if (decision.budget !== undefined) event.policy.budget = decision.budget;
  }
  if (call.failedAttemptsCost !== undefined) event.failedAttemptsCost = call.failedAttemptsCost;
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
  const steered = { skipped: [] as SteeredStepRecord[], demoted: [] as SteeredStepRecord[] };
  const seen = new Set<string>();
  for (const { step, provider, model, action, reason } of call.steered ?? []) {
    const key = `${action} ${step} ${reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    steered[action].push({ step, provider, model, reason });
  }
  // A list is written, empty when nothing happened, whenever what fills it was at work (the
  // guards and hedging act on universal calls only): a report then counts a zero as a fact, and
  // reads an absent list as "not recorded".
  const universal = call.mode === "universal";
  if (steered.skipped.length > 0 || (universal && call.client.limits)) {
    event.skippedSteps = steered.skipped;
  }
  if (steered.demoted.length > 0 || (universal && call.client.health)) {
    event.demotedSteps = steered.demoted;
  }
  // `route` is unset for a call to an unknown route (see `CallState.route`).
  if (call.hedges?.length || (universal && call.route?.config.hedge)) {
    event.hedges = (call.hedges ?? []).map((hedge) => ({ ...hedge }));
  }
  return event;
}
