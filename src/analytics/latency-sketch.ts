/**
 * @module
 * A bounded-memory latency distribution for p50/p95/p99.
 *
 * Up to {@link exactSampleLimit} samples it keeps every value and its quantiles are exact. Past
 * that it switches, once and for good, to a log-bucket histogram (the DDSketch idea): a value
 * `x` goes to bucket `ceil(log_γ x)` with `γ = (1 + α) / (1 − α)` and `α` =
 * {@link relativeAccuracy} (1 %), and a bucket reports `2γ^i / (γ + 1)`. Every quantile it
 * returns is then within ±1 % (relative) of the exact nearest-rank quantile. Values below
 * 0.001 ms count as 0. Latencies from 1 µs to 28 hours fit in at most ~2,100 buckets, so memory
 * per sketch is bounded whatever the number of events.
 *
 * Quantile definition (both modes): nearest rank — the smallest sample `v` such that at least
 * `q · n` samples are ≤ `v`.
 */

/** Samples kept exactly before the sketch switches to buckets. */
export const exactSampleLimit = 1024;
/** Relative error bound of quantiles once bucketed. */
export const relativeAccuracy = 0.01;

const gamma = (1 + relativeAccuracy) / (1 - relativeAccuracy);
const logGamma = Math.log(gamma);
const smallestBucketed = 0.001;

/**
 * Counts per bucket index in one array from the lowest index seen to the highest: latencies
 * span a few hundred neighbouring buckets, so this is a few kilobytes and an add is an index,
 * where a map hashed every value.
 */
class BucketCounts {
  #lowest = 0;
  #counts: number[] = [];

  add(index: number, count: number): void {
    const counts = this.#counts;
    if (counts.length === 0) this.#lowest = index;
    else if (index < this.#lowest) {
      this.#counts = [...new Array<number>(this.#lowest - index).fill(0), ...counts];
      this.#lowest = index;
    }
    const at = index - this.#lowest;
    const all = this.#counts;
    while (all.length <= at) all.push(0);
    all[at] = (all[at] as number) + count;
  }

  /** Index and count of every bucket with calls, lowest index first. */
  entries(): [number, number][] {
    const found: [number, number][] = [];
    this.#counts.forEach((count, at) => {
      if (count > 0) found.push([at + this.#lowest, count]);
    });
    return found;
  }
}

/** A {@link LatencySketch} as plain data (structured-cloneable). */
export interface LatencySketchState {
  /** Every value while exact, else null. */
  readonly samples: readonly number[] | null;
  /** Bucket index and count pairs once bucketed. */
  readonly buckets: readonly (readonly [number, number])[];
  readonly zeros: number;
  readonly count: number;
}

/** Mergeable latency distribution: exact when small, ±1 % relative error when large. */
export class LatencySketch {
  #samples: number[] | null = [];
  #buckets: BucketCounts | null = null;
  #zeros = 0;
  #count = 0;

  /** Number of values added. */
  get count(): number {
    return this.#count;
  }

  /** True while every sample is kept (quantiles are exact). */
  get exact(): boolean {
    return this.#samples !== null;
  }

  add(value: number): void {
    this.#count += 1;
    if (this.#samples !== null) {
      this.#samples.push(value);
      if (this.#samples.length > exactSampleLimit) this.#toBuckets();
      return;
    }
    this.#addToBucket(value, 1);
  }

  /** The sketch as plain data, to carry it to another thread ({@link LatencySketch.of}). */
  state(): LatencySketchState {
    return {
      samples: this.#samples === null ? null : [...this.#samples],
      buckets: this.#buckets?.entries() ?? [],
      zeros: this.#zeros,
      count: this.#count,
    };
  }

  /** The sketch {@link LatencySketch.state} described. */
  static of(state: LatencySketchState): LatencySketch {
    const sketch = new LatencySketch();
    sketch.#count = state.count;
    sketch.#zeros = state.zeros;
    if (state.samples !== null) sketch.#samples = [...state.samples];
    else {
      sketch.#samples = null;
      sketch.#buckets = new BucketCounts();
      for (const [index, count] of state.buckets) sketch.#buckets.add(index, count);
    }
    return sketch;
  }

  /** Adds every value of `other` to this sketch (`other` is left unchanged). */
  merge(other: LatencySketch): void {
    if (other.#count === 0) return;
    if (this.#samples !== null && other.#samples !== null) {
      for (const value of other.#samples) this.add(value);
      return;
    }
    if (this.#samples !== null) this.#toBuckets();
    this.#count += other.#count;
    if (other.#samples !== null) {
      for (const value of other.#samples) this.#addToBucket(value, 1);
      return;
    }
    this.#zeros += other.#zeros;
    for (const [index, count] of other.#buckets?.entries() ?? []) {
      this.#buckets?.add(index, count);
    }
  }

  /** Nearest-rank quantile for `q` in [0, 1]; null when empty. */
  quantile(q: number): number | null {
    if (this.#count === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.#count));
    if (this.#samples !== null) {
      const sorted = Float64Array.from(this.#samples).sort();
      return sorted[rank - 1] ?? null;
    }
    if (rank <= this.#zeros) return 0;
    let seen = this.#zeros;
    for (const [index, count] of this.#buckets?.entries() ?? []) {
      seen += count;
      if (seen >= rank) return (2 * gamma ** index) / (gamma + 1);
    }
    return null;
  }

  #toBuckets(): void {
    const samples = this.#samples ?? [];
    this.#samples = null;
    this.#buckets = new BucketCounts();
    for (const value of samples) this.#addToBucket(value, 1);
  }

  #addToBucket(value: number, count: number): void {
    if (value < smallestBucketed) {
      this.#zeros += count;
      return;
    }
    const index = Math.ceil(Math.log(value) / logGamma);
    this.#buckets?.add(index, count);
  }
}
