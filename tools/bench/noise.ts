/**
 * @module
 * How noisy a benchmark's figure is, measured by the run itself, pure. The run's rounds (one block
 * of every side each, as `runInterleaved` runs them) are merged into a few consecutive parts; the
 * figure is computed on each part as if it were a smaller run of its own; the section states how
 * far the parts spread around their median. A part is a fraction of the run, so a whole second run
 * on the same machine, as loaded, lands within that spread or closer: the bound each section
 * states as "a second run lands within ±X %".
 */
import { type LoadResult, mergeLoads } from "./load.ts";
import { quantile } from "./stats.ts";

/** Parts a run is split into for its noise. */
export const noiseParts = 4;

/**
 * Consecutive items merged into `parts` groups of (nearly) equal size; fewer groups when there
 * are fewer items.
 * @example partsOf([1, 2, 3, 4, 5], 2, (a, b) => a + b) // [3, 12]: [1, 2] and [3, 4, 5]
 */
export function partsOf<T>(items: readonly T[], parts: number, merge: (a: T, b: T) => T): T[] {
  const count = Math.min(parts, items.length);
  const groups: T[] = [];
  for (let part = 0; part < count; part++) {
    const start = Math.floor((part * items.length) / count);
    const end = Math.floor(((part + 1) * items.length) / count);
    groups.push(items.slice(start + 1, end).reduce(merge, items[start]!));
  }
  return groups;
}

/** An interleaved run's rounds merged into `parts` smaller runs, each side's blocks joined. */
export function partsOfRounds<Name extends string>(
  rounds: readonly Record<Name, LoadResult>[],
  parts = noiseParts,
): Record<Name, LoadResult>[] {
  return partsOf(rounds, parts, (first, second) => {
    const merged = {} as Record<Name, LoadResult>;
    for (const name of Object.keys(first) as Name[]) {
      merged[name] =
        second[name] === undefined ? first[name] : mergeLoads(first[name], second[name]);
    }
    return merged;
  });
}

/**
 * The largest distance of a value from the values' median, in percent of the median.
 * @throws RangeError for no values.
 */
export function spreadPercent(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("a spread needs at least one value");
  const median = quantile(values, 0.5);
  if (median === 0) return values.every((value) => value === 0) ? 0 : Number.POSITIVE_INFINITY;
  return (Math.max(...values.map((value) => Math.abs(value - median))) / Math.abs(median)) * 100;
}

/** A spread as `±2.4 %` (`±0 %` for none). */
export function formatSpread(percent: number): string {
  if (!Number.isFinite(percent)) return "± ∞";
  return `±${percent === 0 ? "0" : percent < 10 ? percent.toFixed(1) : percent.toFixed(0)} %`;
}

/** One figure's values over the parts of a run, for the section's noise sentence. */
export interface NoisyFigure {
  /** What the values are: `the emulator's share of direct's requests/s`. */
  readonly figure: string;
  readonly values: readonly number[];
  readonly format: (value: number) => string;
}

/**
 * The sentence a section states its noise in, from its headline figures' values over the run's
 * parts (`part` says what one part is: `750 requests per side`).
 */
export function noiseStatement(part: string, figures: readonly NoisyFigure[]): string {
  const measured = figures.filter((item) => item.values.length >= 2);
  if (measured.length === 0) {
    return "not computed: this run measured its figures once (no parts to compare).";
  }
  const widest = Math.max(...measured.map((item) => spreadPercent(item.values)));
  const each = measured
    .map(
      (item) =>
        `${item.figure} ${item.values.map(item.format).join(", ")} (${formatSpread(spreadPercent(item.values))})`,
    )
    .join("; ");
  return `computed on each of the run's ${measured[0]!.values.length} consecutive parts (${part}): ${each}. A second run on a quiet machine lands within ${formatSpread(widest)} of these figures (a part is a fraction of the run, so the whole run's figure is steadier than a part's; on a loaded machine, more).`;
}

/**
 * A side's samples cut at its blocks, for samples that pile up in one array (a stream probe's):
 * `ends` holds the array's length after each of the side's measured blocks.
 * @example samplesByBlock([5, 6, 7, 8], [1, 4]) // [[5], [6, 7, 8]]
 */
export function samplesByBlock(samples: readonly number[], ends: readonly number[]): number[][] {
  return ends.map((end, index) => samples.slice(index === 0 ? 0 : ends[index - 1], end));
}
