/**
 * @module
 * Client steering in the report: how often the client's guards left a step out of an attempt
 * (`skippedSteps`: provider limits) or moved it back (`demotedSteps`: health steering), and how
 * its hedges went (`hedges`), per route and per step.
 *
 * Definitions (every renderer and test uses these):
 * - **skipped / demoted calls of a step**: calls whose event lists the step (keyed by step index,
 *   provider and model: a policy chain counts its steps within the chain) as skipped / demoted,
 *   once per call; **share**: those calls / the route's calls. **reasons**: calls per reason; a
 *   call that lists the step for two reasons counts under each, so reasons may add up to more.
 * - **calls that skipped (demoted) a step**: calls whose event lists at least one such step.
 * - **hedges due**: hedge records (no answer had started `afterMs` after the attempt's first
 *   request); **sent**: those sent; **not sent**: per reason (`cost_cap`, `unpriced`);
 *   **calls hedged**: calls that sent at least one hedge; **won**: sent hedges whose answer the
 *   call kept (`kept: "hedge"`), **win rate** won / sent; **both failed**: `kept: "none"`.
 * - **extra cost**: the sum of the client's estimate for each sent hedge (the prompt at the input
 *   price of the dropped request's step); an estimate, not a bill.
 *
 * Unknown is not zero. The client writes each list (empty when nothing happened) on every
 * universal call where its guard or hedging is at work, and none without them; older clients wrote
 * them only when something happened, and gateway logs and Analytics Engine points never carry
 * them. So a route whose events hold none of a list shows its figures as null (`—`), not 0:
 * no guard or hedge configured, an older client, or another source. Totals add up the routes that recorded the kind, over those routes' calls.
 */
import type { GroupKey } from "./dimensions.ts";
import {
  emptyHedgeTally,
  type HedgeTally,
  type ReasonTally,
  type RouteTally,
  routeId,
} from "./steering-tally.ts";

/** Calls that did something, out of some calls. */
export interface CallShare {
  calls: number;
  /** Calls the share is of (the route's; for totals, the recording routes'). */
  outOf: number;
  /** calls / outOf; null over zero calls. */
  share: number | null;
}

/** Calls that skipped or demoted one step, with why. */
export interface SteeredCount extends CallShare {
  /** Calls per reason (`rpm_cap`, `retry_after`, `down`, `probation`…). */
  reasons: Record<string, number>;
}

/** One step the client skipped or demoted on a route. */
export interface SteeredStepRow {
  step: number;
  provider: string;
  model: string;
  /** null when no event of the route lists skipped steps; likewise `demoted`. */
  skipped: SteeredCount | null;
  demoted: SteeredCount | null;
}

/** The hedges of a group of calls. */
export interface HedgeFigures {
  /** Calls that sent at least one hedge, out of the calls. */
  hedged: CallShare;
  due: number;
  sent: number;
  /** Hedges due but not sent, per reason. */
  notSent: Record<string, number>;
  won: number;
  /** won / sent; null when none was sent. */
  winRate: number | null;
  bothFailed: number;
  /** Estimated USD of the sent hedges (see the module doc). */
  extraCost: number;
}

/** The steering figures of one route, or of all routes (`key` {}). */
export interface SteeringFigures {
  key: GroupKey;
  calls: number;
  /** Calls that skipped at least one step; null when not recorded. */
  skipped: CallShare | null;
  /** Calls that demoted at least one step; null when not recorded. */
  demoted: CallShare | null;
  /** null when no event lists a hedge. */
  hedging: HedgeFigures | null;
}

/** The steering of a route: its figures and its steered steps. */
export interface RouteSteering extends SteeringFigures {
  steps: SteeredStepRow[];
}

/** The report's steering section. */
export interface Steering {
  /** True when some event in the window lists a skipped or demoted step or a hedge. */
  recorded: boolean;
  /** One per route of the report, in its order. */
  routes: RouteSteering[];
  totals: SteeringFigures;
}

const rate = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null);

function callShare(calls: number, outOf: number): CallShare {
  return { calls, outOf, share: rate(calls, outOf) };
}

function sortedRecord(map: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries(
    [...map.entries()].sort(([a, countA], [b, countB]) => countB - countA || a.localeCompare(b)),
  );
}

function hedgeFigures(tally: HedgeTally, calls: number): HedgeFigures {
  return {
    hedged: callShare(tally.hedgedCalls, calls),
    due: tally.due,
    sent: tally.sent,
    notSent: sortedRecord(tally.notSent),
    won: tally.won,
    winRate: rate(tally.won, tally.sent),
    bothFailed: tally.bothFailed,
    extraCost: tally.extraCost,
  };
}

function steeredCount(tally: ReasonTally, recorded: boolean, calls: number): SteeredCount | null {
  return recorded
    ? { ...callShare(tally.calls, calls), reasons: sortedRecord(tally.reasons) }
    : null;
}

/** The steering section for the report's routes, from the tallies of the counted events. */
export function steeringOf(
  tallies: ReadonlyMap<string, RouteTally>,
  routes: ReadonlyArray<{ readonly key: GroupKey; readonly figures: { readonly calls: number } }>,
): Steering {
  const rows = routes.map((row): RouteSteering => {
    const { calls } = row.figures;
    const tally = tallies.get(routeId(String(row.key.gateway), String(row.key.route)));
    const skipping = tally?.skippingCalls ?? null;
    const demoting = tally?.demotingCalls ?? null;
    const steps = [...(tally?.steps.values() ?? [])]
      .sort(
        (a, b) =>
          a.step - b.step || a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model),
      )
      .map(
        (step): SteeredStepRow => ({
          step: step.step,
          provider: step.provider,
          model: step.model,
          skipped: steeredCount(step.skipped, skipping !== null, calls),
          demoted: steeredCount(step.demoted, demoting !== null, calls),
        }),
      );
    return {
      key: { gateway: row.key.gateway ?? null, route: row.key.route ?? null },
      calls,
      skipped: skipping === null ? null : callShare(skipping, calls),
      demoted: demoting === null ? null : callShare(demoting, calls),
      hedging: tally?.hedges ? hedgeFigures(tally.hedges, calls) : null,
      steps,
    };
  });
  return { recorded: rows.some(isRecorded), routes: rows, totals: totalsOf(rows) };
}

function isRecorded(row: SteeringFigures): boolean {
  return row.skipped !== null || row.demoted !== null || row.hedging !== null;
}

/** The routes added up: each kind over the routes that recorded it. */
function totalsOf(rows: readonly RouteSteering[]): SteeringFigures {
  const sum = (pick: (row: RouteSteering) => CallShare | null): CallShare | null => {
    const recorded = rows.filter((row) => pick(row) !== null);
    if (recorded.length === 0) return null;
    let calls = 0;
    let outOf = 0;
    for (const row of recorded) {
      calls += pick(row)?.calls ?? 0;
      outOf += row.calls;
    }
    return callShare(calls, outOf);
  };
  const hedged = rows.filter((row) => row.hedging !== null);
  let hedging: HedgeFigures | null = null;
  if (hedged.length > 0) {
    const tally = emptyHedgeTally();
    let calls = 0;
    for (const row of hedged) {
      const figures = row.hedging as HedgeFigures;
      calls += row.calls;
      tally.hedgedCalls += figures.hedged.calls;
      tally.due += figures.due;
      tally.sent += figures.sent;
      for (const [reason, count] of Object.entries(figures.notSent)) {
        tally.notSent.set(reason, (tally.notSent.get(reason) ?? 0) + count);
      }
      tally.won += figures.won;
      tally.bothFailed += figures.bothFailed;
      tally.extraCost += figures.extraCost;
    }
    hedging = hedgeFigures(tally, calls);
  }
  return {
    key: {},
    calls: rows.reduce((calls, row) => calls + row.calls, 0),
    skipped: sum((row) => row.skipped),
    demoted: sum((row) => row.demoted),
    hedging,
  };
}
