/**
 * @module
 * The headers of a request that re-sends a call's chain or holds its steps out of the route's
 * order: the call's own, with the request's place in its route (`src/wire/attempt-place.ts`) in
 * `cf-aig-metadata`. The gateway numbers a request's steps from 0 in its logs, so without the
 * entry a re-sent rest of a chain reads there as the route's first steps. A first, in-order
 * request (most calls) does not come here: it sends the call's headers as they are
 * (`attempt.ts`).
 */

import { withAttemptPlace } from "../wire/attempt-place.ts";
import type { CallState, RouteEntry } from "./call-state.ts";

/**
 * The headers of a universal request of `call` over the steps `order`, as its current attempt
 * (the call's headers as they are when the metadata has no room for the entry).
 */
export function attemptHeaders(
  call: CallState,
  order: readonly RouteEntry[],
): Record<string, string> {
  const { headers } = call;
  const sent = headers["cf-aig-metadata"];
  const metadata = withAttemptPlace(sent ?? null, {
    attempt: Math.max(1, call.attempts),
    steps: order.map((entry) => entry.index),
    elapsedMs: call.now() - call.startedAt,
  });
  if (metadata === null || metadata === sent) return headers;
  return Object.assign({}, headers, { "cf-aig-metadata": metadata });
}
