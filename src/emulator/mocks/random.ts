/**
 * @module
 * A small seeded pseudo-random generator (mulberry32), so a fault campaign with `rate` rules is
 * reproducible: the same seed and the same sequence of attempts give the same faults.
 */

/**
 * A generator of numbers in [0, 1) from a 32-bit seed.
 * @example
 * const random = createSeededRandom(42);
 * random(); // the same first number for every run seeded with 42
 */
export function createSeededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
