/**
 * @module
 * Text pieces of the explanation that the terminal, CSV and HTML renderers share: a step's
 * failure reasons as one line, and the cost of fallback beside the primary.
 */
import type { Explanation, FallbackCost, StepExplanation } from "../explain.ts";
import { type FailureReason, failureReasonLabels } from "../failure-reasons.ts";
import { dollars, integer, visibleControls } from "./format.ts";

/** `429 rate limited 3 · 5xx 1`; `—` when none. */
export function reasonsText(reasons: Partial<Record<FailureReason, number>>): string {
  const parts = (Object.entries(reasons) as Array<[FailureReason, number]>).map(
    ([reason, count]) => `${failureReasonLabels[reason]} ${integer(count)}`,
  );
  return parts.length > 0 ? parts.join(" · ") : "—";
}

/** `openai/gpt-4o-mini` of a step; `—` for no step. */
export function stepModelText(step: Pick<StepExplanation, "provider" | "model">): string {
  if (step.provider === null && step.model === null) return "—";
  return visibleControls(`${step.provider ?? "?"}/${step.model ?? "?"}`);
}

/** The primary a route's fallback is priced at, with where it came from. */
export function primaryText(fallback: Pick<FallbackCost, "primary">): string {
  const { primary } = fallback;
  if (primary === null) return "—";
  const name = visibleControls(`${primary.provider}/${primary.model}`);
  return primary.from === "config" ? name : `${name} (from events)`;
}

/** `$0.0012`, or `—` when the primary's price is unknown. */
export function onPrimaryText(value: number | null): string {
  return value === null ? "—" : dollars(value);
}

/** `+$0.0004` / `-$0.0002`; `—` when unknown. */
export function extraText(value: number | null): string {
  if (value === null) return "—";
  return `${value < 0 ? "-" : "+"}${dollars(Math.abs(value))}`;
}

/** The note under the fallback cost when it could not be priced. */
export function pricingNote(explanation: Explanation): string | null {
  if (explanation.totals.fallback.calls === 0) return null;
  if (!explanation.priced)
    return "on primary: give --config <stack file> for the price table and each route's primary";
  if (explanation.totals.fallback.onPrimary === null)
    return "on primary: the config has no price for some route's primary (models:)";
  return null;
}
