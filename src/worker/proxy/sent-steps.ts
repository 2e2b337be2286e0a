/**
 * @module
 * Which copies of a universal call's steps go upstream, and the request's place in the client's
 * route rewritten for them: each step once per usable key of its pool (at most
 * {@link maxKeysPerStep}), keys at their caps left out, at most {@link maxSentSteps} in all.
 */
import { type AttemptPlace, forwardPlace, withAttemptPlace } from "../../wire/attempt-place.ts";
import type { SentKey } from "./pool-observer.ts";
import type { ResolvedPool } from "./request-keys.ts";

/** Most keys of one pool a universal step is sent with. */
export const maxKeysPerStep = 4;
/** Most steps sent upstream in one universal request. */
const maxSentSteps = 20;

/** The steps sent upstream: each step once per key of its pool, skipping keys at their caps. */
export function sentSteps(pools: readonly ResolvedPool[]): SentKey[] {
  const perStep = pools.map((pool, step) =>
    pool.source === "current"
      ? pool.keys.slice(0, maxKeysPerStep).map((key) => ({ step, provider: pool.provider, key }))
      : [{ step, provider: pool.provider, key: undefined }],
  );
  // Past the gateway's step limit, the steps with the most keys give up their last ones.
  let total = perStep.reduce((sum, copies) => sum + copies.length, 0);
  while (total > maxSentSteps) {
    const widest = perStep.reduce((best, copies) => (copies.length > best.length ? copies : best));
    widest.pop();
    total--;
  }
  return perStep.flat();
}

/**
 * Rewrites the request's place in the client's route (`cf-aig-metadata` `stepwise`) for the
 * steps sent upstream: the gateway logs each request's steps from 0, so once the Worker sends a
 * step once per key, or leaves one out, the place says which route step each position is.
 */
export function forwardPlaceHeader(
  headers: Headers,
  received: AttemptPlace | null,
  sent: readonly SentKey[],
  receivedSteps: number,
): void {
  const place = forwardPlace(
    received,
    sent.map((copy) => copy.step),
    receivedSteps,
  );
  if (place === null && received === null) return;
  const metadata = withAttemptPlace(headers.get("cf-aig-metadata"), place);
  if (metadata !== null) headers.set("cf-aig-metadata", metadata);
}
