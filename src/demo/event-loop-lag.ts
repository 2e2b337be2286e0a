/**
 * @module
 * How starved for CPU the run was. The demo and the fault campaign run the client, the emulator
 * and the mock providers in this process, with timeouts of hundreds of milliseconds; when the
 * machine is busy, the process waits for a core, its timers fire late and calls miss their
 * deadlines for that reason alone. `watchEventLoop` measures the event loop's delay during a run
 * (Node's `monitorEventLoopDelay`), and `starvationVerdict` says whether it was large enough next
 * to the run's timeouts to be the cause of what failed, so the output names a starved machine
 * instead of blaming the providers or the keys.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

/** The event loop's delay over a run, in ms. */
export interface EventLoopLag {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

/** A running measurement; `stop()` ends it and returns the figures. */
export interface EventLoopWatch {
  /** The figures so far, without stopping. */
  read(): EventLoopLag;
  stop(): EventLoopLag;
}

const round = (nanoseconds: number) => Math.round(nanoseconds / 1e5) / 10;

/** Starts measuring the event loop's delay, sampled every `resolutionMs`. */
export function watchEventLoop(resolutionMs = 20): EventLoopWatch {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const read = (): EventLoopLag => {
    if (histogram.count === 0) return { p50Ms: 0, p99Ms: 0, maxMs: 0, meanMs: 0 };
    return {
      p50Ms: round(histogram.percentile(50)),
      p99Ms: round(histogram.percentile(99)),
      maxMs: round(histogram.max),
      meanMs: round(histogram.mean),
    };
  };
  return {
    read,
    stop() {
      const figures = read();
      histogram.disable();
      return figures;
    },
  };
}

/** Whether the run was starved for CPU, and the sentence that says so. */
export interface StarvationVerdict {
  readonly starved: boolean;
  readonly lag: EventLoopLag;
  /** The shortest timeout of the run the lag is compared with, in ms. */
  readonly timeoutMs: number;
  /** `event-loop lag p99 12 ms · max 40 ms (step timeouts 500 ms)`. */
  readonly summary: string;
}

/**
 * A run is starved when the event loop's delay is a sizeable part of its shortest timeout: its
 * 99th percentile a fifth of it or more, or a single stall as long as the timeout. Either is
 * enough to time out calls that would have been answered in time on an idle machine.
 */
export function starvationVerdict(lag: EventLoopLag, timeoutMs: number): StarvationVerdict {
  const starved = lag.p99Ms >= timeoutMs / 5 || lag.maxMs >= timeoutMs;
  const ms = (value: number) => `${Math.round(value).toLocaleString("en-US")} ms`;
  return {
    starved,
    lag,
    timeoutMs,
    summary: `event-loop lag p99 ${ms(lag.p99Ms)} · max ${ms(lag.maxMs)} (step timeouts ${ms(timeoutMs)})`,
  };
}

/**
 * The line that names starvation as the cause of failures, or `undefined` when the run was not
 * starved.
 */
export function starvationNote(verdict: StarvationVerdict): string | undefined {
  if (!verdict.starved) return undefined;
  return `the machine was starved for CPU: ${verdict.summary}. Calls ran out of time because this process waited for a core, not because of the providers or the keys; run again on a quieter machine, or with less --concurrency.`;
}
