/**
 * @module
 * The steering columns and rows of the CSV output (see `csv.ts` for where they go): figures at
 * full precision, extra cost rounded like every cost cell, an empty cell where the events
 * recorded nothing (unknown, not 0).
 */
import type { GroupKey } from "../dimensions.ts";
import type { CallShare, SteeredCount, Steering, SteeringFigures } from "../steering.ts";

/** The steering columns, last in every row. */
export const steeringCsvColumns = [
  "reason",
  "steered_calls",
  "steered_share",
  "skipped_calls",
  "skipped_share",
  "demoted_calls",
  "demoted_share",
  "hedged_calls",
  "hedged_share",
  "hedges_due",
  "hedges_sent",
  "hedges_not_sent",
  "hedges_won",
  "hedge_win_rate",
  "hedge_extra_cost",
] as const;

/** Decimal places of the extra-cost cell (as `costDecimals` in `csv.ts`). */
const costDecimals = 8;

/** One steered step's row: for all its reasons (`reason` null) or one reason. */
export interface SteeredStepRow {
  scope: "skipped-step" | "demoted-step";
  key: GroupKey;
  reason: string | null;
  count: { calls: number; share: number | null };
}

/** The steering cells of a row: a steered step's, or a route's / the total's figures. */
export function steeringCells(
  step: { reason: string | null; count: SteeringStepCount } | null,
  figures: SteeringFigures | null,
): Array<string | number | null> {
  const share = (value: CallShare | null) => [value?.calls ?? null, value?.share ?? null];
  const hedging = figures?.hedging ?? null;
  return [
    step?.reason ?? null,
    step?.count.calls ?? null,
    step?.count.share ?? null,
    ...share(figures?.skipped ?? null),
    ...share(figures?.demoted ?? null),
    ...share(hedging?.hedged ?? null),
    hedging?.due ?? null,
    hedging?.sent ?? null,
    hedging === null ? null : hedging.due - hedging.sent,
    hedging?.won ?? null,
    hedging?.winRate ?? null,
    hedging === null ? null : Number(hedging.extraCost.toFixed(costDecimals)),
  ];
}

type SteeringStepCount = { calls: number; share: number | null };

/** The `skipped-step` and `demoted-step` rows, route by route, step by step. */
export function steeringStepRows(steering: Steering): SteeredStepRow[] {
  const rows: SteeredStepRow[] = [];
  for (const route of steering.routes) {
    for (const step of route.steps) {
      const key: GroupKey = {
        gateway: route.key.gateway ?? null,
        route: route.key.route ?? null,
        step: step.step,
        provider: step.provider,
        model: step.model,
      };
      const add = (scope: SteeredStepRow["scope"], count: SteeredCount | null) => {
        if (count === null || count.calls === 0) return;
        rows.push({ scope, key, reason: null, count });
        for (const [reason, calls] of Object.entries(count.reasons)) {
          const share = count.outOf > 0 ? calls / count.outOf : null;
          rows.push({ scope, key, reason, count: { calls, share } });
        }
      };
      add("skipped-step", step.skipped);
      add("demoted-step", step.demoted);
    }
  }
  return rows;
}
