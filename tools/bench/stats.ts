/**
 * @module
 * The benchmark runner's statistics, pure: percentiles by linear interpolation between closest
 * ranks (the default of numpy and R's type 7), summaries of latency samples, ratios, and the
 * formats the tables print.
 */

/** What a set of latency samples looks like. Times are in the samples' unit (ms here). */
export interface Summary {
  readonly count: number;
  readonly min: number;
  readonly median: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/**
 * The `q`-quantile (0 ≤ q ≤ 1) of samples already sorted ascending, interpolating linearly
 * between the two closest ranks.
 * @throws RangeError for no samples or a q outside [0, 1].
 */
export function quantileOfSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError("a quantile needs at least one sample");
  if (!(q >= 0 && q <= 1)) throw new RangeError(`a quantile is between 0 and 1, got ${q}`);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const below = sorted[lower]!;
  return below + (sorted[upper]! - below) * (position - lower);
}

/** The `q`-quantile of samples in any order. */
export function quantile(samples: readonly number[], q: number): number {
  return quantileOfSorted(
    [...samples].sort((a, b) => a - b),
    q,
  );
}

/**
 * Count, min, median, p99, max and mean of the samples.
 * @throws RangeError for no samples.
 */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) throw new RangeError("a summary needs at least one sample");
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    count: sorted.length,
    min: sorted[0]!,
    median: quantileOfSorted(sorted, 0.5),
    p99: quantileOfSorted(sorted, 0.99),
    max: sorted[sorted.length - 1]!,
    mean: total / sorted.length,
  };
}

/**
 * How many times the baseline the candidate is (1.05 = 5 % slower when both are times).
 * @throws RangeError when the baseline is not a positive number.
 */
export function ratio(candidate: number, baseline: number): number {
  if (!(baseline > 0)) throw new RangeError(`a ratio needs a positive baseline, got ${baseline}`);
  return candidate / baseline;
}

/** Requests per second for `count` requests in `elapsedMs`. */
export function throughput(count: number, elapsedMs: number): number {
  if (!(elapsedMs > 0)) throw new RangeError(`elapsed time must be positive, got ${elapsedMs}`);
  return (count * 1000) / elapsedMs;
}

/** Milliseconds with three significant figures at most: `0.412 ms`, `12.3 ms`, `251 ms`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "—";
  const digits = Math.abs(ms) >= 100 ? 0 : Math.abs(ms) >= 10 ? 1 : Math.abs(ms) >= 1 ? 2 : 3;
  return `${ms.toFixed(digits)} ms`;
}

/** A ratio as `1.04×`. */
export function formatRatio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "—";
}

/** A whole number with thousands separators: `12,345`. */
export function formatCount(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "—";
}

/** Bytes as `12.3 kB` / `45.6 MB` (1 kB = 1,000 bytes), with the exact count for small sizes. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "—";
  if (bytes < 1_000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  if (bytes < 1_000_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${(bytes / 1_000_000_000).toFixed(2)} GB`;
}

/** A signed difference in ms: `+0.21 ms`, `−1.30 ms`. */
export function formatDeltaMs(ms: number): string {
  if (!Number.isFinite(ms)) return "—";
  const text = formatMs(Math.abs(ms));
  return ms < 0 ? `−${text}` : `+${text}`;
}
