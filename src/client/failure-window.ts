/**
 * @module
 * A circuit's failure-rate window: the outcomes of the last `windowMs`, kept as a ring of
 * {@link windowBucketCount} time buckets, so its memory is constant whatever the traffic and its
 * rate is approximate to one bucket (`windowMs / windowBucketCount`).
 */

/** Time buckets per circuit that make up the failure-rate window. */
export const windowBucketCount = 10;

/** Outcomes in one slice of the window; `slot` is the slice's number since the epoch. */
export interface WindowBucket {
  slot: number;
  successes: number;
  failures: number;
}

/** The window's outcomes at `time`; `rate` is null below `minimumCalls`. */
export function windowCounts(
  buckets: readonly WindowBucket[],
  time: number,
  bucketMs: number,
  minimumCalls: number,
): { calls: number; failures: number; rate: number | null } {
  const current = Math.floor(time / bucketMs);
  let calls = 0;
  let failures = 0;
  for (const bucket of buckets) {
    if (bucket.slot > current - windowBucketCount && bucket.slot <= current) {
      calls += bucket.successes + bucket.failures;
      failures += bucket.failures;
    }
  }
  return { calls, failures, rate: calls < minimumCalls ? null : failures / calls };
}

/** Counts one outcome at `time` in the ring `buckets` (indexed by `slot % windowBucketCount`). */
export function countOutcome(
  buckets: WindowBucket[],
  ok: boolean,
  time: number,
  bucketMs: number,
): void {
  const slot = Math.floor(time / bucketMs);
  const index = ((slot % windowBucketCount) + windowBucketCount) % windowBucketCount;
  // Fill holes so the ring never holds more than windowBucketCount entries.
  while (buckets.length < index) buckets.push({ slot: -Infinity, successes: 0, failures: 0 });
  let bucket = buckets[index];
  if (bucket === undefined || bucket.slot !== slot) {
    bucket = { slot, successes: 0, failures: 0 };
    buckets[index] = bucket;
  }
  if (ok) bucket.successes++;
  else bucket.failures++;
}
