/**
 * @module
 * The chain one attempt sends: the route's steps in order, except that providers whose circuit
 * is open go to the end (or are left out), and a half-open provider keeps its place only in the
 * one call that holds its probe. Also turns an attempt's outcome into breaker outcomes: every
 * step before the one that served failed (the gateway only moves on after a failure).
 */

import type { StepConfig } from "../config/schema.ts";
import type { CircuitBreaker } from "./breaker.ts";
import type { StepReference } from "./errors.ts";

/** A route step and its index in the route. */
export interface ChainEntry {
  readonly index: number;
  readonly step: StepConfig;
}

/** The steps one attempt tries, in order, and the probes the call holds. */
export interface Chain {
  readonly entries: readonly ChainEntry[];
  /** Provider → probe token, for half-open providers this call probes. */
  readonly probes: ReadonlyMap<string, number>;
}

/** What the served position says about one step of the chain. */
export type StepOutcome = "failed" | "answered" | "unknown";

/** The route's steps as chain entries. */
export function routeEntries(steps: readonly StepConfig[]): ChainEntry[] {
  return steps.map((step, index) => ({ index, step }));
}

/** The step reference of an entry, for errors and results. */
export function referenceOf(entry: ChainEntry): StepReference {
  return { index: entry.index, provider: entry.step.provider, model: entry.step.model };
}

/**
 * Orders candidates for one attempt. Without a breaker the order is unchanged. A call claims at
 * most one probe per half-open provider; `heldProbes` are the probes it already holds.
 */
export function orderChain(
  candidates: readonly ChainEntry[],
  breaker: CircuitBreaker | undefined,
  heldProbes: Map<string, number>,
): Chain {
  if (breaker === undefined) return { entries: candidates, probes: heldProbes };
  const decisions = new Map<string, "front" | "back">();
  let anyOpen = false;
  for (const { step } of candidates) {
    if (decisions.has(step.provider)) continue;
    if (heldProbes.has(step.provider)) {
      decisions.set(step.provider, "front");
      continue;
    }
    const admission = breaker.admit(step.provider);
    if (admission.kind === "probe") heldProbes.set(step.provider, admission.token);
    anyOpen ||= admission.kind === "open";
    decisions.set(step.provider, admission.kind === "open" ? "back" : "front");
  }
  if (!anyOpen) return { entries: candidates, probes: heldProbes };
  const front = candidates.filter((entry) => decisions.get(entry.step.provider) === "front");
  const back = candidates.filter((entry) => decisions.get(entry.step.provider) === "back");
  if (breaker.settings.whenOpen === "drop" && front.length > 0) {
    return { entries: front, probes: heldProbes };
  }
  return { entries: [...front, ...back], probes: heldProbes };
}

/**
 * Tells the breaker what one attempt showed: entries before `position` failed; the entry at
 * `position` gets `servedOutcome`; entries after it were not tried.
 */
export function observeChain(
  breaker: CircuitBreaker | undefined,
  entries: readonly ChainEntry[],
  position: number,
  servedOutcome: StepOutcome,
  probes: ReadonlyMap<string, number>,
): void {
  if (breaker === undefined) return;
  for (let offset = 0; offset <= position && offset < entries.length; offset++) {
    const outcome = offset < position ? "failed" : servedOutcome;
    if (outcome === "unknown") continue;
    const { provider } = entries[offset]!.step;
    breaker.record(provider, outcome === "answered", probes.get(provider));
  }
}

/** Frees every probe the call still holds (its outcome told nothing about the provider). */
export function releaseProbes(
  breaker: CircuitBreaker | undefined,
  probes: ReadonlyMap<string, number>,
): void {
  if (breaker === undefined) return;
  for (const [provider, token] of probes) breaker.releaseProbe(provider, token);
}
