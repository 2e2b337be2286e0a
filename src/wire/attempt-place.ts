/**
 * @module
 * The one writer and reader of an attempt's place in its route: the `stepwise` entry of
 * `cf-aig-metadata`. The gateway numbers the steps of each request from 0 (its `cf-aig-step`
 * and its logs' `step`), so when the client re-sends the rest of a chain after a failure (a cut
 * or stalled stream, a context-length refusal, a `validate` rejection, a Retry-After exclusion)
 * or sends it reordered (breaker, health, limits), the gateway's step is not the route's step.
 * The entry says which route step each position of the request is:
 *
 * | entry | meaning |
 * |---|---|
 * | `attempt=<n>` | the call's attempt this request is (1 for the first) |
 * | `steps=<i>.<j>…` | the route step index of each step in the request as sent, in order |
 * | `elapsed=<ms>` | whole ms of the call before this request was sent |
 *
 * e.g. `stepwise: "attempt=2;steps=1.2;elapsed=31"`. A first request that sends the route's
 * steps in order (`0.1.2…`) carries no entry: without one, the gateway's step is the route's.
 * The companion Worker rewrites the entry when it drops or repeats steps ({@link forwardPlace}).
 *
 * AI Gateway keeps five metadata entries a request ("only the first five will be saved"), so the
 * entry is written second, after `route`, and only when the request has fewer than five entries
 * of its own: a call that uses all five has no room for it (nor for `route`).
 */

/** The metadata key of the entry. */
export const attemptPlaceKey = "stepwise";

/** The metadata entries AI Gateway keeps per request. */
export const maxMetadataEntries = 5;

/** Where one request stands in its call. */
export interface AttemptPlace {
  /** The call's attempt (1-based). */
  readonly attempt: number;
  /** The route step index of each step the request holds, in the order sent. */
  readonly steps: readonly number[];
  /** Whole ms of the call before this request was sent. */
  readonly elapsedMs: number;
}

/** The place of a first, in-order request: what a request without the entry means. */
export function firstPlace(stepCount: number): AttemptPlace {
  return {
    attempt: 1,
    steps: Array.from({ length: stepCount }, (_, index) => index),
    elapsedMs: 0,
  };
}

/** True when the place says more than "first attempt, route steps in order". */
export function needsPlace(place: AttemptPlace): boolean {
  return place.attempt !== 1 || place.steps.some((step, position) => step !== position);
}

/** `attempt=2;steps=1.2;elapsed=31`. */
export function formatAttemptPlace(place: AttemptPlace): string {
  const elapsed = Math.max(0, Math.round(place.elapsedMs));
  return `attempt=${place.attempt};steps=${place.steps.join(".")};elapsed=${elapsed}`;
}

const pattern = /^attempt=([1-9]\d{0,5});steps=(\d{1,4}(?:\.\d{1,4}){0,63});elapsed=(\d{1,12})$/;

/** The place an entry's value names, or null for anything else (never guessed). */
export function parseAttemptPlace(value: unknown): AttemptPlace | null {
  if (typeof value !== "string") return null;
  const match = pattern.exec(value.trim());
  if (match === null) return null;
  return {
    attempt: Number(match[1]),
    steps: match[2]!.split(".").map(Number),
    elapsedMs: Number(match[3]),
  };
}

/**
 * The route step of the request's step at `position` (the gateway's step): through the place
 * when there is one, else the position itself; null when the place holds no such position.
 */
export function routeStepOf(place: AttemptPlace | null, position: number): number | null {
  if (place === null) return position;
  return place.steps[position] ?? null;
}

/**
 * The place of a request the Worker sends on: `sentFrom[k]` is the position in the request it
 * received of the step it sends at position `k` (it sends a step once per key of its pool, or
 * leaves out a step whose keys are all at their caps). Null when the result needs no entry.
 */
export function forwardPlace(
  received: AttemptPlace | null,
  sentFrom: readonly number[],
  receivedSteps: number,
): AttemptPlace | null {
  const place = received ?? firstPlace(receivedSteps);
  const steps = sentFrom.map((position) => place.steps[position] ?? position);
  const forwarded = { ...place, steps };
  return needsPlace(forwarded) ? forwarded : null;
}

/**
 * The `cf-aig-metadata` text with the place's entry set (second, after `route`), or removed when
 * `place` is null. Text that is not a JSON object, or a request with no room left, is returned
 * as it was.
 */
export function withAttemptPlace(
  metadata: string | null,
  place: AttemptPlace | null,
): string | null {
  let entries: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(metadata ?? "{}");
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return metadata;
    entries = parsed as Record<string, unknown>;
  } catch {
    return metadata;
  }
  const { [attemptPlaceKey]: previous, ...others } = entries;
  if (place === null) return previous === undefined ? metadata : JSON.stringify(others);
  const keys = Object.keys(others);
  if (keys.length >= maxMetadataEntries) {
    return previous === undefined ? metadata : JSON.stringify(others);
  }
  const result: Record<string, unknown> = {};
  if ("route" in others) result.route = others.route;
  result[attemptPlaceKey] = formatAttemptPlace(place);
  for (const key of keys) if (key !== "route") result[key] = others[key];
  return JSON.stringify(result);
}

/** The place a metadata object (as logged or sent) names, or null. */
export function placeOfMetadata(
  metadata: Readonly<Record<string, unknown>> | null | undefined,
): AttemptPlace | null {
  return parseAttemptPlace(metadata?.[attemptPlaceKey]);
}
