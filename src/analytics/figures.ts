/**
 * @module
 * The figures of one group of calls and the accumulator that builds them in one pass.
 *
 * Definitions (every renderer, threshold and test uses these):
 * - **calls**: events in the group. **share**: calls / calls of the enclosing scope (the whole
 *   window for a row, the time bucket for a row inside a bucket).
 * - **success rate**: calls with `ok` / calls.
 * - **availability**: calls *answered* / calls made. A call is answered when it succeeded or got
 *   a definitive refusal that is not a service failure: a status 400–499 other than 408 and 429.
 *   Network errors and timeouts (status 0), 408, 429 and 5xx count against availability, and so
 *   does a 2xx that is not ok (a stream cut or an unreadable answer: the caller got nothing
 *   usable); a 400 (the caller's own mistake) does not, though it is not a success either.
 * - **fallback rate**: calls served by step ≥ 1 / calls.
 * - **steps**: calls per serving step (`"0"`, `"1"`, … and `"none"` when no step served).
 * - **latency p50/p95/p99**: nearest-rank quantiles of `latencyMs` over all calls of the group,
 *   exact up to 1,024 calls and within ±1 % above (see `latency-sketch.ts`).
 * - **tokens in/out, cost**: sums (unknown values count as 0); the cost is summed exactly and
 *   rounded once (`exact-sum.ts`), so it does not depend on the order calls are counted in.
 * - **cache hit rate**: `HIT` / calls whose cache status is known (`HIT` or `MISS`); null when
 *   the gateway reported none.
 * - **budget hits**: calls a routing policy sent to its budget's `over` chain because the budget
 *   was spent (the client's events record it; gateway logs and Analytics Engine points cannot say
 *   which branch a call took, so they count none).
 * Rates are fractions in [0, 1]; a rate over zero calls is null.
 */
import type { CallEvent } from "../client/event.ts";
import { ExactSum } from "./exact-sum.ts";
import { LatencySketch, type LatencySketchState } from "./latency-sketch.ts";

/** Every figure of one group. */
export interface Figures {
  calls: number;
  share: number | null;
  ok: number;
  successRate: number | null;
  answered: number;
  availability: number | null;
  fallbacks: number;
  fallbackRate: number | null;
  /** Calls per serving step: `"0"`, `"1"`, …, `"none"`. */
  steps: Record<string, number>;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  p99LatencyMs: number | null;
  /** True when the latency quantiles are exact (≤ 1,024 calls). */
  latencyExact: boolean;
  tokensIn: number;
  tokensOut: number;
  cost: number;
  cacheHits: number;
  cacheLookups: number;
  cacheHitRate: number | null;
  budgetHits: number;
}

/** True when the call got a definitive answer that is not a service failure (see module doc). */
export function isAnswered(event: Pick<CallEvent, "ok" | "status">): boolean {
  if (event.ok) return true;
  return event.status >= 400 && event.status < 500 && event.status !== 408 && event.status !== 429;
}

/** The step key of an event in `Figures.steps`. */
export function stepKey(step: number | null): string {
  return step === null ? "none" : String(step);
}

/** A {@link GroupStats} as plain data (structured-cloneable). */
export interface GroupStatsState {
  /** calls, ok, answered, fallbacks, tokensIn, tokensOut, cacheHits, cacheLookups, budgetHits, calls no step served. */
  readonly counts: readonly [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  readonly cost: readonly number[];
  readonly stepCounts: readonly (number | undefined)[];
  readonly latency: LatencySketchState;
}

/** Streaming accumulator of one group's figures; memory is bounded whatever the call count. */
export class GroupStats implements CallCounts {
  calls = 0;
  ok = 0;
  answered = 0;
  fallbacks = 0;
  tokensIn = 0;
  tokensOut = 0;
  readonly #cost = new ExactSum();
  cacheHits = 0;
  cacheLookups = 0;
  budgetHits = 0;
  /** Calls per serving step (index), and calls no step served. */
  readonly #stepCounts: number[] = [];
  #noStep = 0;
  readonly latency = new LatencySketch();

  /** The cost of the group's calls (unknown costs count as 0). */
  get cost(): number {
    return this.#cost.value;
  }

  /** The accumulator as plain data, to carry it to another thread ({@link GroupStats.of}). */
  state(): GroupStatsState {
    return {
      counts: [
        this.calls,
        this.ok,
        this.answered,
        this.fallbacks,
        this.tokensIn,
        this.tokensOut,
        this.cacheHits,
        this.cacheLookups,
        this.budgetHits,
        this.#noStep,
      ],
      cost: [...this.#cost.partials],
      stepCounts: [...this.#stepCounts],
      latency: this.latency.state(),
    };
  }

  /** The accumulator {@link GroupStats.state} described. */
  static of(state: GroupStatsState): GroupStats {
    const stats = new GroupStats();
    const [calls, ok, answered, fallbacks, tokensIn, tokensOut, hits, lookups, budget, noStep] =
      state.counts;
    stats.calls = calls;
    stats.ok = ok;
    stats.answered = answered;
    stats.fallbacks = fallbacks;
    stats.tokensIn = tokensIn;
    stats.tokensOut = tokensOut;
    stats.cacheHits = hits;
    stats.cacheLookups = lookups;
    stats.budgetHits = budget;
    stats.#noStep = noStep;
    for (const partial of state.cost) stats.#cost.add(partial);
    state.stepCounts.forEach((count, step) => {
      if (count !== undefined) stats.#stepCounts[step] = count;
    });
    stats.latency.merge(LatencySketch.of(state.latency));
    return stats;
  }

  /** Calls per serving step: `"0"`, `"1"`, …, `"none"`. */
  get steps(): Map<string, number> {
    const steps = new Map<string, number>();
    this.#stepCounts.forEach((count, step) => {
      if (count > 0) steps.set(String(step), count);
    });
    if (this.#noStep > 0) steps.set("none", this.#noStep);
    return steps;
  }

  add(event: CallEvent): void {
    this.calls += 1;
    if (event.ok) this.ok += 1;
    if (isAnswered(event)) this.answered += 1;
    const step = event.step;
    if (step === null) this.#noStep += 1;
    else {
      if (step >= 1) this.fallbacks += 1;
      this.#stepCounts[step] = (this.#stepCounts[step] ?? 0) + 1;
    }
    this.latency.add(event.latencyMs);
    this.tokensIn += event.tokensIn ?? 0;
    this.tokensOut += event.tokensOut ?? 0;
    if (event.cost) this.#cost.add(event.cost);
    if (event.cacheStatus !== null) {
      this.cacheLookups += 1;
      if (event.cacheStatus === "HIT") this.cacheHits += 1;
    }
    if (event.policy?.budget === "over") this.budgetHits += 1;
  }

  merge(other: GroupStats): void {
    this.calls += other.calls;
    this.ok += other.ok;
    this.answered += other.answered;
    this.fallbacks += other.fallbacks;
    this.tokensIn += other.tokensIn;
    this.tokensOut += other.tokensOut;
    this.#cost.merge(other.#cost);
    this.cacheHits += other.cacheHits;
    this.cacheLookups += other.cacheLookups;
    this.budgetHits += other.budgetHits;
    other.#stepCounts.forEach((count, step) => {
      this.#stepCounts[step] = (this.#stepCounts[step] ?? 0) + count;
    });
    this.#noStep += other.#noStep;
    this.latency.merge(other.latency);
  }

  /** The figures, with `share` relative to `scopeCalls`. */
  figures(scopeCalls: number): Figures {
    return figuresOf(
      this,
      this.steps,
      {
        p50: this.latency.quantile(0.5),
        p95: this.latency.quantile(0.95),
        p99: this.latency.quantile(0.99),
        exact: this.latency.exact,
      },
      scopeCalls,
    );
  }
}

/** The additive counts of a group of calls (what a SQL query can sum on the server). */
export interface CallCounts {
  calls: number;
  ok: number;
  answered: number;
  fallbacks: number;
  tokensIn: number;
  tokensOut: number;
  cost: number;
  cacheHits: number;
  cacheLookups: number;
  budgetHits: number;
}

/** Latency quantiles of a group, however they were computed. */
export interface LatencyQuantiles {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  exact: boolean;
}

/** The figures of a group from its counts, calls per step and latency quantiles. */
export function figuresOf(
  counts: CallCounts,
  steps: ReadonlyMap<string, number>,
  latency: LatencyQuantiles,
  scopeCalls: number,
): Figures {
  const rate = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);
  return {
    calls: counts.calls,
    share: rate(counts.calls, scopeCalls),
    ok: counts.ok,
    successRate: rate(counts.ok, counts.calls),
    answered: counts.answered,
    availability: rate(counts.answered, counts.calls),
    fallbacks: counts.fallbacks,
    fallbackRate: rate(counts.fallbacks, counts.calls),
    steps: Object.fromEntries([...steps.entries()].sort(([a], [b]) => compareStepKeys(a, b))),
    p50LatencyMs: latency.p50,
    p95LatencyMs: latency.p95,
    p99LatencyMs: latency.p99,
    latencyExact: latency.exact,
    tokensIn: counts.tokensIn,
    tokensOut: counts.tokensOut,
    cost: counts.cost,
    cacheHits: counts.cacheHits,
    cacheLookups: counts.cacheLookups,
    cacheHitRate: rate(counts.cacheHits, counts.cacheLookups),
    budgetHits: counts.budgetHits,
  };
}

/** Orders step keys 0, 1, 2, …, none. */
export function compareStepKeys(a: string, b: string): number {
  if (a === b) return 0;
  if (a === "none") return 1;
  if (b === "none") return -1;
  return Number(a) - Number(b);
}
