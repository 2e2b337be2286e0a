/**
 * @module
 * The breaker's failure-rate window for one provider, in constant memory: a ring of
 * {@link windowBucketCount} time buckets of `windowMs / windowBucketCount` each, holding counts
 * of successes and failures, reused as the clock moves on. The window slides one bucket at a
 * time: counts cover the current bucket and the ones before it, between
 * `windowMs − windowMs / windowBucketCount` and `windowMs` of history. An outcome older than
 * `windowMs` is always forgotten.
 */

/** Time buckets per provider that make up the failure-rate window. */
export const windowBucketCount = 10;

/** Outcome counts of one slice of the window; `slot` numbers the slice since the epoch. */
interface Bucket {
  slot: number;
  successes: number;
  failures: number;
}

/** Outcomes of the last `windowMs`, in at most {@link windowBucketCount} buckets. */
export class OutcomeWindow {
  /** A ring indexed by `slot % windowBucketCount`. */
  readonly #buckets: Bucket[] = [];
  readonly #bucketMs: number;

  constructor(windowMs: number) {
    this.#bucketMs = windowMs / windowBucketCount;
  }

  /** Counts one outcome at `now`. */
  record(ok: boolean, now: number): void {
    const bucket = this.#bucketAt(now);
    if (ok) bucket.successes++;
    else bucket.failures++;
  }

  /** Outcomes in the window that ends at `now`. */
  counts(now: number): { calls: number; failures: number } {
    const current = this.#slotOf(now);
    let calls = 0;
    let failures = 0;
    for (const bucket of this.#buckets) {
      if (bucket.slot > current - windowBucketCount && bucket.slot <= current) {
        calls += bucket.successes + bucket.failures;
        failures += bucket.failures;
      }
    }
    return { calls, failures };
  }

  /** Forgets every outcome. */
  clear(): void {
    this.#buckets.length = 0;
  }

  /** Buckets held: at most {@link windowBucketCount}, whatever the traffic. */
  get storedBuckets(): number {
    return this.#buckets.length;
  }

  /** The bucket counting outcomes at `now`; a stale bucket in its ring place is reset. */
  #bucketAt(now: number): Bucket {
    const slot = this.#slotOf(now);
    const index = ((slot % windowBucketCount) + windowBucketCount) % windowBucketCount;
    let bucket = this.#buckets[index];
    if (bucket === undefined) {
      // Fill holes so the ring never holds more than windowBucketCount entries.
      while (this.#buckets.length < index) {
        this.#buckets.push({ slot: Number.NEGATIVE_INFINITY, successes: 0, failures: 0 });
      }
      bucket = { slot, successes: 0, failures: 0 };
      this.#buckets[index] = bucket;
    } else if (bucket.slot !== slot) {
      bucket.slot = slot;
      bucket.successes = 0;
      bucket.failures = 0;
    }
    return bucket;
  }

  #slotOf(time: number): number {
    return Math.floor(time / this.#bucketMs);
  }
}
