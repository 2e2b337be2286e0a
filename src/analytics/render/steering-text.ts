/**
 * @module
 * The text of the steering figures (`steering.ts`), shared by the table and the HTML page: a
 * count with its share of the route's calls, reasons with their counts, the estimated extra cost
 * of hedges. A figure the events did not record reads `—`, never 0.
 */
import type { CallShare, HedgeFigures, SteeredCount, Steering } from "../steering.ts";
import { integer, percent, visibleControls } from "./format.ts";

/** `3 (30.00%)`; `—` when not recorded. */
export function callShareText(value: CallShare | null): string {
  return value === null ? "—" : `${integer(value.calls)} (${percent(value.share)})`;
}

/** `rpm_cap 2, retry_after 1`; `—` when not recorded, empty when none. */
export function reasonsText(reasons: Record<string, number> | null): string {
  if (reasons === null) return "—";
  return Object.entries(reasons)
    .map(([reason, count]) => `${visibleControls(reason)} ${integer(count)}`)
    .join(", ");
}

/** `skipped: rpm_cap 2 · demoted: down 1`, the reasons of one steered step. */
export function stepReasonsText(
  skipped: SteeredCount | null,
  demoted: SteeredCount | null,
): string {
  const parts: string[] = [];
  if (skipped && skipped.calls > 0) parts.push(`skipped: ${reasonsText(skipped.reasons)}`);
  if (demoted && demoted.calls > 0) parts.push(`demoted: ${reasonsText(demoted.reasons)}`);
  return parts.join(" · ");
}

/** USD with 6 decimals (a hedge's estimate is often below a hundredth of a cent); `—` unknown. */
export function estimatedDollars(value: number | null): string {
  if (value === null) return "—";
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: 6, maximumFractionDigits: 6 })}`;
}

/** One hedging column of the steering table: its title, figure name, raw value and text. */
export interface HedgeColumn {
  readonly title: string;
  readonly figure: string;
  readonly value: (hedging: HedgeFigures) => number | null;
  readonly text: (hedging: HedgeFigures) => string;
}

/** The hedging columns, in order; every cell is `—` for a route without hedge records. */
export const hedgeColumns: readonly HedgeColumn[] = [
  {
    title: "hedged",
    figure: "hedged",
    value: (h) => h.hedged.calls,
    text: (h) => callShareText(h.hedged),
  },
  { title: "hedges due", figure: "hedgesDue", value: (h) => h.due, text: (h) => integer(h.due) },
  { title: "sent", figure: "hedgesSent", value: (h) => h.sent, text: (h) => integer(h.sent) },
  {
    title: "not sent",
    figure: "hedgesNotSent",
    value: (h) => h.due - h.sent,
    text: (h) => (h.due === h.sent ? "0" : reasonsText(h.notSent)),
  },
  {
    title: "hedge won",
    figure: "hedgesWon",
    value: (h) => h.won,
    text: (h) => `${integer(h.won)} (${percent(h.winRate)})`,
  },
  {
    title: "extra cost (est.)",
    figure: "hedgeExtraCost",
    value: (h) => h.extraCost,
    text: (h) => estimatedDollars(h.extraCost),
  },
];

/** Why a report has no steering figures (shown instead of the tables). */
export function notRecordedNote(steering: Steering): string | null {
  if (steering.recorded) return null;
  return "Client steering: not recorded (no event lists a skipped or demoted step or a hedge; only the client's events carry them, and only when it steered).";
}
