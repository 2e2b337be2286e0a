/**
 * @module
 * The explanation's columns and rows of the CSV output (`csv.ts` puts them last): `step-outcome`
 * rows, one per route and step, with the calls it served, their share and cost, and its failures
 * in all and per reason; `fallback-cost` rows, one per route and one total, with the fallback
 * calls, their cost, the primary, what they would have cost on it and the difference. Costs are
 * rounded like every cost cell; an empty cell is unknown (no price for the primary), not 0.
 */
import type { GroupKey } from "../dimensions.ts";
import type { Explanation, FallbackCost, StepExplanation } from "../explain.ts";
import { failureReasons } from "../failure-reasons.ts";

/** The explanation columns, after the steering columns. */
export const explainCsvColumns = [
  "served",
  "served_share",
  "served_cost",
  "failed",
  ...failureReasons.map((reason) => `failed_${reason}` as const),
  "fallback_calls",
  "fallback_cost",
  "primary",
  "cost_on_primary",
  "fallback_extra_cost",
] as const;

/** Decimal places of cost cells (as `costDecimals` in `csv.ts`). */
const costDecimals = 8;

const money = (value: number | null): number | null =>
  value === null ? null : Number(value.toFixed(costDecimals));

/** One explanation row: its scope, key and cells. */
export interface ExplainRow {
  scope: "step-outcome" | "fallback-cost";
  key: GroupKey;
  cells: Array<string | number | null>;
}

/** The explanation cells of a row that is not an explanation row: all empty. */
export function emptyExplainCells(): null[] {
  return explainCsvColumns.map(() => null);
}

function stepCells(step: StepExplanation): Array<string | number | null> {
  return [
    step.served,
    step.share,
    money(step.cost),
    step.failed,
    ...failureReasons.map((reason) => step.reasons[reason] ?? 0),
    null,
    null,
    null,
    null,
    null,
  ];
}

function fallbackCells(
  fallback: Omit<FallbackCost, "primary"> & Partial<Pick<FallbackCost, "primary">>,
): Array<string | number | null> {
  const primary = fallback.primary
    ? `${fallback.primary.provider}/${fallback.primary.model}`
    : null;
  return [
    ...Array.from({ length: 4 + failureReasons.length }, () => null),
    fallback.calls,
    money(fallback.cost),
    primary,
    money(fallback.onPrimary),
    money(fallback.extra),
  ];
}

/** The `step-outcome` rows, then the `fallback-cost` rows (routes, then the total). */
export function explainRows(explanation: Explanation | null): ExplainRow[] {
  if (explanation === null) return [];
  const rows: ExplainRow[] = [];
  for (const route of explanation.routes) {
    for (const step of route.steps) {
      rows.push({
        scope: "step-outcome",
        key: {
          gateway: route.key.gateway ?? null,
          route: route.key.route ?? null,
          step: step.step,
          provider: step.provider,
          model: step.model,
        },
        cells: stepCells(step),
      });
    }
  }
  for (const route of explanation.routes) {
    rows.push({
      scope: "fallback-cost",
      key: { gateway: route.key.gateway ?? null, route: route.key.route ?? null },
      cells: fallbackCells(route.fallback),
    });
  }
  if (explanation.routes.length > 0) {
    rows.push({
      scope: "fallback-cost",
      key: {},
      cells: fallbackCells(explanation.totals.fallback),
    });
  }
  return rows;
}
