/**
 * @module
 * The change between two windows: for the totals and for every group present in either window,
 * each figure's baseline value, current value, absolute change and relative change. Rates
 * change in fractions (0.02 = two percentage points); counts, latency and cost also get a
 * relative change (0.5 = +50 %).
 */
import { type Aggregate, compareKeys, type GroupKey, type GroupRow } from "./aggregate.ts";
import type { Figures } from "./figures.ts";

/** The figures a comparison reports, in table order. */
export const comparedFigures = [
  "calls",
  "share",
  "successRate",
  "availability",
  "fallbackRate",
  "p50LatencyMs",
  "p95LatencyMs",
  "p99LatencyMs",
  "tokensIn",
  "tokensOut",
  "cost",
  "cacheHitRate",
] as const satisfies ReadonlyArray<keyof Figures>;

export type ComparedFigure = (typeof comparedFigures)[number];

/** One figure in both windows. */
export interface FigureChange {
  baseline: number | null;
  current: number | null;
  /** current − baseline; null when either is null. */
  delta: number | null;
  /** delta / baseline; null when either is null or the baseline is 0. */
  relative: number | null;
}

export type Changes = Record<ComparedFigure, FigureChange>;

/** The comparison of the current window with a baseline window. */
export interface Comparison {
  /** The baseline window and its figures (per group as in the current window). */
  baseline: {
    since: string | null;
    until: string | null;
    counted: number;
    totals: Figures;
    groups: GroupRow[];
  };
  totals: Changes;
  groups: Array<{ key: GroupKey; changes: Changes }>;
}

/** Compares `current` with `baseline` (both aggregated with the same dimensions). */
export function compareAggregates(current: Aggregate, baseline: Aggregate): Comparison {
  const byKey = new Map<string, { key: GroupKey; current?: Figures; baseline?: Figures }>();
  for (const row of current.groups)
    byKey.set(JSON.stringify(row.key), { key: row.key, current: row.figures });
  for (const row of baseline.groups) {
    const id = JSON.stringify(row.key);
    const entry = byKey.get(id) ?? { key: row.key };
    entry.baseline = row.figures;
    byKey.set(id, entry);
  }
  return {
    baseline: {
      ...baseline.window,
      counted: baseline.counted,
      totals: baseline.totals,
      groups: baseline.groups,
    },
    totals: changes(baseline.totals, current.totals),
    groups: [...byKey.values()]
      .sort((a, b) => compareKeys(a.key, b.key))
      .map((entry) => ({ key: entry.key, changes: changes(entry.baseline, entry.current) })),
  };
}

function changes(baseline: Figures | undefined, current: Figures | undefined): Changes {
  const result = {} as Changes;
  for (const figure of comparedFigures) {
    // A group absent from a window made 0 calls there; its rates are unknown (null).
    const before = baseline ? baseline[figure] : absentValue(figure);
    const after = current ? current[figure] : absentValue(figure);
    const delta = before === null || after === null ? null : after - before;
    result[figure] = {
      baseline: before,
      current: after,
      delta,
      relative: delta === null || before === null || before === 0 ? null : delta / before,
    };
  }
  return result;
}

function absentValue(figure: ComparedFigure): number | null {
  return figure === "calls" || figure === "tokensIn" || figure === "tokensOut" || figure === "cost"
    ? 0
    : figure === "share"
      ? 0
      : null;
}
