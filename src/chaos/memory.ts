/**
 * @module
 * Memory over the run: heap used and RSS sampled at a fixed interval, and the comparison that
 * says whether they stayed flat. Each sample is taken right after a full garbage collection when
 * one can be forced (see `fullCollection`), so it measures what is retained rather than when the
 * collector last ran. Samples taken during warm-up (connection pools filling, code compiling) are
 * left out; the rest is cut in thirds, and the median of the last third is compared with the
 * median of the first.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A function that runs a full garbage collection: `globalThis.gc` when node runs with
 * `--expose-gc`, else one obtained by turning the flag on at run time (as Jest's leak detector
 * does); `undefined` when neither works.
 */
export function fullCollection(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === "function") return exposed as () => void;
  try {
    setFlagsFromString("--expose-gc");
    const collect: unknown = runInNewContext("gc");
    return typeof collect === "function" ? (collect as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/** One sample. */
export interface MemorySample {
  /** Ms since the run started. */
  readonly atMs: number;
  /** Calls finished when the sample was taken. */
  readonly calls: number;
  readonly heapUsed: number;
  readonly rss: number;
}

/** A running sampler; `stop()` returns the samples. */
export interface MemorySampler {
  readonly samples: readonly MemorySample[];
  stop(): MemorySample[];
}

/** Samples `process.memoryUsage()` every `intervalMs`; `calls()` says how far the run is. */
export function sampleMemory(options: {
  readonly intervalMs: number;
  readonly calls: () => number;
  readonly now?: () => number;
  readonly read?: () => { heapUsed: number; rss: number };
  /** Runs before each sample (a full garbage collection), when given. */
  readonly collect?: () => void;
}): MemorySampler {
  const now = options.now ?? (() => performance.now());
  const read = options.read ?? (() => process.memoryUsage());
  const start = now();
  const samples: MemorySample[] = [];
  const take = () => {
    options.collect?.();
    const { heapUsed, rss } = read();
    samples.push({ atMs: now() - start, calls: options.calls(), heapUsed, rss });
  };
  take();
  const timer = setInterval(take, options.intervalMs);
  timer.unref();
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

/** How one measure moved between the first and the last third. */
export interface MemoryTrend {
  /** Median of the first third after warm-up, in bytes. */
  readonly first: number;
  /** Median of the last third, in bytes. */
  readonly last: number;
  /** last − first, in bytes. */
  readonly growth: number;
  /** growth / first. */
  readonly relative: number;
  /** The growth allowed: the larger of the relative and the absolute tolerance. */
  readonly allowed: number;
  readonly flat: boolean;
}

export interface MemoryTolerance {
  /** Share of samples (by calls finished) treated as warm-up. Default 0.1. */
  readonly warmupShare?: number;
  /** Default 0.1 (10 %) of the heap, 0.25 (25 %) of RSS. */
  readonly relative?: number;
  /** Bytes of growth always allowed. Default 8 MiB for the heap, 48 MiB for RSS. */
  readonly heapBytes?: number;
  readonly rssBytes?: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function trend(first: number[], last: number[], relative: number, bytes: number): MemoryTrend {
  const start = median(first);
  const end = median(last);
  const growth = end - start;
  const allowed = Math.max(relative * start, bytes);
  return {
    first: start,
    last: end,
    growth,
    relative: start === 0 ? 0 : growth / start,
    allowed,
    flat: growth <= allowed,
  };
}

/** The heap and RSS trends; `undefined` with fewer than 3 samples after warm-up. */
export function memoryTrends(
  samples: readonly MemorySample[],
  tolerance: MemoryTolerance = {},
): { heap: MemoryTrend; rss: MemoryTrend; samples: number } | undefined {
  const total = samples.at(-1)?.calls ?? 0;
  const warmup = (tolerance.warmupShare ?? 0.1) * total;
  const measured = samples.filter((sample) => sample.calls >= warmup);
  if (measured.length < 3) return undefined;
  const third = Math.floor(measured.length / 3);
  const first = measured.slice(0, third);
  const last = measured.slice(measured.length - third);
  return {
    heap: trend(
      first.map((sample) => sample.heapUsed),
      last.map((sample) => sample.heapUsed),
      tolerance.relative ?? 0.1,
      tolerance.heapBytes ?? 8 * 1024 * 1024,
    ),
    rss: trend(
      first.map((sample) => sample.rss),
      last.map((sample) => sample.rss),
      tolerance.relative ?? 0.25,
      tolerance.rssBytes ?? 48 * 1024 * 1024,
    ),
    samples: measured.length,
  };
}
