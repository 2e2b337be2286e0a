/**
 * @module
 * A sum of floating-point numbers that does not depend on the order they are added in: the
 * exact sum is kept as a few non-overlapping partials (Shewchuk's algorithm, as Python's
 * `math.fsum`) and read rounded once. So a cost summed over a file in one pass and the same cost
 * summed in parts by several threads and merged are the same number, to the last bit, and that
 * number is the correctly rounded total (a plain running `+=` drifts with the order). Adding a
 * value costs a few additions while the partials stay few, as they do for sums of costs.
 */

/** An order-independent, correctly rounded sum of finite numbers. */
export class ExactSum {
  /** Non-overlapping partials, smallest magnitude first; their exact sum is the total. */
  #partials: number[] = [];

  /** Adds a finite number. */
  add(value: number): void {
    const partials = this.#partials;
    let x = value;
    let kept = 0;
    for (let index = 0; index < partials.length; index += 1) {
      let y = partials[index] as number;
      if (Math.abs(x) < Math.abs(y)) {
        const swap = x;
        x = y;
        y = swap;
      }
      const high = x + y;
      const low = y - (high - x);
      if (low !== 0) {
        partials[kept] = low;
        kept += 1;
      }
      x = high;
    }
    partials.length = kept;
    partials.push(x);
  }

  /** Adds everything `other` holds (`other` is left unchanged). */
  merge(other: ExactSum): void {
    for (const partial of other.#partials) this.add(partial);
  }

  /** The partials, to carry the sum to another thread. */
  get partials(): readonly number[] {
    return this.#partials;
  }

  /** A sum of these partials (from {@link partials}). */
  static of(partials: readonly number[]): ExactSum {
    const sum = new ExactSum();
    for (const partial of partials) sum.add(partial);
    return sum;
  }

  /** The total, rounded to the nearest double (ties to even), as `math.fsum` gives it. */
  get value(): number {
    const partials = this.#partials;
    let index = partials.length;
    if (index === 0) return 0;
    index -= 1;
    let high = partials[index] as number;
    let low = 0;
    while (index > 0) {
      const x = high;
      index -= 1;
      const y = partials[index] as number;
      high = x + y;
      low = y - (high - x);
      if (low !== 0) break;
    }
    // Round half-way cases the way the exact sum says: look at the next partial's sign.
    if (index > 0) {
      const next = partials[index - 1] as number;
      if ((low < 0 && next < 0) || (low > 0 && next > 0)) {
        const y = low * 2;
        const x = high + y;
        if (y === x - high) high = x;
      }
    }
    return high;
  }
}
