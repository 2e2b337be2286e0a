/**
 * @module
 * The campaign's invariants, as pure checks over what the run collected. Each returns a
 * `Check`: its name, whether it held, and a one-line detail with the figures behind it. The
 * report prints each as ✔ or ✖, and any ✖ makes `stepwise chaos` exit with 1.
 */
import type { LeakScanner } from "./leak-scanner.ts";
import { type MemorySample, type MemoryTolerance, memoryTrends } from "./memory.ts";

/** One invariant's verdict. */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const signedMib = (bytes: number) => `${bytes >= 0 ? "+" : "−"}${mib(Math.abs(bytes))}`;

/** Every call has exactly one event with its id, and no event belongs to no call. */
export function checkRecordedOnce(callIds: readonly string[], eventIds: readonly string[]): Check {
  const calls = new Set(callIds);
  const seen = new Map<string, number>();
  for (const id of eventIds) seen.set(id, (seen.get(id) ?? 0) + 1);
  const missing = [...calls].filter((id) => !seen.has(id)).length;
  const duplicated = [...seen].filter(([id, count]) => calls.has(id) && count > 1).length;
  const unknown = [...seen.keys()].filter((id) => !calls.has(id)).length;
  const ok = missing === 0 && duplicated === 0 && unknown === 0 && calls.size === callIds.length;
  return {
    name: "every call recorded exactly once",
    ok,
    detail: `${callIds.length} calls, ${eventIds.length} events · ${missing} missing · ${duplicated} recorded twice · ${unknown} without a call`,
  };
}

/** A call's timing: its deadline and how long it took (the longer of wall time and event). */
export interface CallTiming {
  readonly id: string;
  readonly deadlineMs: number;
  readonly latencyMs: number;
}

/**
 * No call ends later than its deadline plus `toleranceMs`. The detail also says how many calls ran
 * into their deadline, and how far past it the latest one ended.
 */
export function checkDeadlines(timings: readonly CallTiming[], toleranceMs: number): Check {
  let over = 0;
  let reached = 0;
  let latestOverrun = 0;
  let longest = 0;
  let deadline = 0;
  for (const timing of timings) {
    const overrun = timing.latencyMs - timing.deadlineMs;
    if (overrun > toleranceMs) over += 1;
    if (overrun >= 0) {
      reached += 1;
      latestOverrun = Math.max(latestOverrun, overrun);
    }
    if (timing.latencyMs >= longest) {
      longest = timing.latencyMs;
      deadline = timing.deadlineMs;
    }
  }
  const reachedText =
    reached === 0
      ? "none reached its deadline"
      : `${reached} reached their deadline and ended at most ${Math.round(latestOverrun)} ms after it`;
  return {
    name: "no call runs past its deadline",
    ok: over === 0,
    detail: `${over} of ${timings.length} over (tolerance ${toleranceMs} ms) · ${reachedText} · longest ${Math.round(longest)} ms against a ${deadline} ms deadline`,
  };
}

/** No promise rejection went unhandled during the run. */
export function checkUnhandledRejections(count: number): Check {
  return {
    name: "no rejection goes unhandled",
    ok: count === 0,
    detail: `${count} unhandled rejection${count === 1 ? "" : "s"} (process "unhandledRejection")`,
  };
}

/** No secret appeared in any scanned source. */
export function checkNoLeaks(scanner: LeakScanner): Check {
  const covered = [...scanner.coverage()]
    .map(([source, { items }]) => `${items} ${source}`)
    .join(", ");
  const hits = scanner.hits;
  const where = [...new Set(hits.map((hit) => `${hit.label} in ${hit.source}`))].join("; ");
  return {
    name: "no key appears in any output",
    ok: hits.length === 0,
    detail:
      hits.length === 0
        ? `${scanner.secretCount} secrets searched in ${covered}`
        : `${hits.length} leak${hits.length === 1 ? "" : "s"}: ${where}`,
  };
}

/** Heap and RSS stayed flat between the first and last third of the run. */
export function checkMemoryFlat(
  samples: readonly MemorySample[],
  tolerance: MemoryTolerance = {},
  collected = true,
): Check {
  const trends = memoryTrends(samples, tolerance);
  if (trends === undefined) {
    return {
      name: "memory stays flat",
      ok: false,
      detail: `${samples.length} samples: too few to compare; run more calls`,
    };
  }
  const { heap, rss } = trends;
  const describe = (label: string, trend: typeof heap) =>
    `${label} ${mib(trend.first)} → ${mib(trend.last)} (${signedMib(trend.growth)}, allowed ${signedMib(trend.allowed)})`;
  return {
    name: "memory stays flat",
    ok: heap.flat && rss.flat,
    detail: `${describe("heap", heap)} · ${describe("RSS", rss)} · medians of the first and last third of ${trends.samples} samples after warm-up${collected ? ", each after a full GC" : " (no forced GC: looser tolerance)"}`,
  };
}

/** What the key rotations did. */
export interface RotationOutcome {
  readonly planned: number;
  readonly done: number;
  /** Rotations the Worker refused or that could not reach it. */
  readonly failed: number;
  /** Provider attempts refused for their key while the run went on, late ones included. */
  readonly refusedKeys: number;
  /**
   * Calls whose answer was a refusal of their key (a 401 or 403): the refusals a key change
   * caused. An attempt that reaches the provider after its call has ended (its deadline passed,
   * the caller gone) is refused once its old key is revoked, but fails no call.
   */
  readonly callsRefusedForKey: number;
  /** Old keys revoked at the provider once no call could still hold them. */
  readonly revoked: number;
}

/** Every rotation went through and no call was refused for the key the Worker injected. */
export function checkRotations(outcome: RotationOutcome): Check {
  const late = Math.max(0, outcome.refusedKeys - outcome.callsRefusedForKey);
  const lateText =
    late === 0 ? "" : ` (${late} more reached the provider after their call had ended)`;
  return {
    name: "key rotations never fail a call",
    ok:
      outcome.failed === 0 && outcome.done === outcome.planned && outcome.callsRefusedForKey === 0,
    detail: `${outcome.done} of ${outcome.planned} rotations through the Worker's admin API · ${outcome.revoked} old keys revoked after their calls drained · ${outcome.callsRefusedForKey} calls refused for their key${lateText}`,
  };
}

/** Measured availability is at least the expected one minus `tolerance`. */
export function checkAvailability(measured: number, expected: number, tolerance: number): Check {
  const percent = (value: number) => `${(value * 100).toFixed(2)} %`;
  return {
    name: "availability meets the theory",
    ok: measured >= expected - tolerance,
    detail: `${percent(measured)} measured ≥ ${percent(expected)} expected − ${percent(tolerance)} tolerance`,
  };
}

/** How far (as a share) streamed availability may fall below plain availability: half a point. */
export const streamedAvailabilityTolerance = 0.005;

/** Answered calls out of all calls of one kind (plain or streamed). */
export interface AnsweredShare {
  readonly answered: number;
  readonly calls: number;
}

/**
 * Streamed calls are about as available as plain ones: the streamed share answered is at most
 * `tolerance` below the plain one, plus two standard errors of the difference of the two shares
 * (so a quick run with few streamed calls is not failed by one unlucky call; with thousands of
 * calls the allowance is a fraction of a point).
 */
export function checkStreamedLikePlain(
  plain: AnsweredShare,
  stream: AnsweredShare,
  tolerance: number,
): Check {
  const name = "streamed calls are as available as plain ones";
  if (plain.calls === 0 || stream.calls === 0) {
    return {
      name,
      ok: true,
      detail: `${stream.calls} streamed, ${plain.calls} plain: nothing to compare`,
    };
  }
  const plainShare = plain.answered / plain.calls;
  const streamShare = stream.answered / stream.calls;
  const pooled = (plain.answered + stream.answered) / (plain.calls + stream.calls);
  const noise = 2 * Math.sqrt(pooled * (1 - pooled) * (1 / plain.calls + 1 / stream.calls));
  const gap = plainShare - streamShare;
  const points = (value: number) => `${(value * 100).toFixed(2)}`;
  return {
    name,
    ok: gap <= tolerance + noise,
    detail: `streamed ${points(streamShare)} % (${stream.calls} calls) vs plain ${points(plainShare)} % (${plain.calls}) · ${gap > 0 ? `${points(gap)} points below` : `${points(-gap)} points above`}, allowed ${points(tolerance)} + ${points(noise)} sampling`,
  };
}
