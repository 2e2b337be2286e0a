/**
 * A deliberately plain recomputation of every figure, straight from the definitions in
 * `src/analytics/figures.ts`, used as the oracle of the aggregation tests: arrays, filters and a
 * full sort, no streaming and no sketch.
 */
import { expect } from "vitest";
import type { CallEvent } from "../../src/client/event.ts";

export type Dimension = "gateway" | "route" | "step" | "provider" | "model";

export interface ReferenceFigures {
  calls: number;
  share: number | null;
  successRate: number | null;
  availability: number | null;
  fallbackRate: number | null;
  steps: Record<string, number>;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  p99LatencyMs: number | null;
  tokensIn: number;
  tokensOut: number;
  cost: number;
  cacheHitRate: number | null;
}

export function referenceFigures(
  events: readonly CallEvent[],
  scopeCalls: number,
): ReferenceFigures {
  const calls = events.length;
  const ratio = (part: number, whole: number) => (whole === 0 ? null : part / whole);
  const latencies = events.map((event) => event.latencyMs).sort((a, b) => a - b);
  const quantile = (q: number) =>
    latencies.length === 0
      ? null
      : (latencies[Math.max(1, Math.ceil(q * latencies.length)) - 1] ?? null);
  const answered = events.filter(
    (event) =>
      event.ok ||
      (event.status >= 400 && event.status <= 499 && event.status !== 408 && event.status !== 429),
  ).length;
  const steps: Record<string, number> = {};
  for (const event of events) {
    const key = event.step === null ? "none" : String(event.step);
    steps[key] = (steps[key] ?? 0) + 1;
  }
  const known = events.filter((event) => event.cacheStatus !== null);
  return {
    calls,
    share: ratio(calls, scopeCalls),
    successRate: ratio(events.filter((event) => event.ok).length, calls),
    availability: ratio(answered, calls),
    fallbackRate: ratio(
      events.filter((event) => event.step !== null && event.step >= 1).length,
      calls,
    ),
    steps,
    p50LatencyMs: quantile(0.5),
    p95LatencyMs: quantile(0.95),
    p99LatencyMs: quantile(0.99),
    tokensIn: events.reduce((sum, event) => sum + (event.tokensIn ?? 0), 0),
    tokensOut: events.reduce((sum, event) => sum + (event.tokensOut ?? 0), 0),
    cost: events.reduce((sum, event) => sum + (event.cost ?? 0), 0),
    cacheHitRate: ratio(known.filter((event) => event.cacheStatus === "HIT").length, known.length),
  };
}

/** Groups events by the values of `dimensions`; the key is a JSON object of those values. */
export function referenceGroups(
  events: readonly CallEvent[],
  dimensions: readonly Dimension[],
): Map<string, CallEvent[]> {
  const groups = new Map<string, CallEvent[]>();
  for (const event of events) {
    const key = JSON.stringify(
      Object.fromEntries(dimensions.map((dimension) => [dimension, event[dimension]])),
    );
    groups.set(key, [...(groups.get(key) ?? []), event]);
  }
  return groups;
}

/** Events inside `[since, until)` (null ends open). */
export function referenceWindow(
  events: readonly CallEvent[],
  since: number | null,
  until: number | null,
): CallEvent[] {
  return events.filter((event) => {
    const time = Date.parse(event.time);
    return (since === null || time >= since) && (until === null || time < until);
  });
}

/** Asserts computed figures equal the reference ones (cost, a float sum, to 1e-9). */
export function expectFiguresMatch(actual: object, expected: ReferenceFigures): void {
  const { cost, ...exact } = expected;
  const got = actual as Record<string, unknown>;
  expect(Object.fromEntries(Object.keys(exact).map((name) => [name, got[name]]))).toEqual(exact);
  expect(got.cost).toBeCloseTo(cost, 9);
}
