/**
 * @module
 * The circuit breaker's own types: its options, its health, and what `createCircuitBreaker`
 * (`breaker.ts`, the `stepwise-gateway/client/breaker` entry, which exports them) returns. Its states and
 * transitions are the client's shared types (`types.ts`): a recorder names a transition without
 * the breaker.
 */

import type { BreakerState, BreakerTransition, StepBreaker } from "./types.ts";

export type { BreakerReason, BreakerState, BreakerTransition } from "./types.ts";

/** Circuit breaker settings; every field has a default. */
export interface BreakerOptions {
  /** Consecutive failures that open a circuit. Default 5. */
  readonly failureThreshold?: number;
  /** Failure rate (0–1) over the window that opens a circuit. Default 0.5. */
  readonly failureRateThreshold?: number;
  /**
   * Length of the failure-rate window, in ms. Default 60 000. The window moves in steps of
   * `windowMs / windowBucketCount`, so its rate is approximate to one such step.
   */
  readonly windowMs?: number;
  /** Outcomes the window needs before its rate counts. Default 10. */
  readonly minimumCalls?: number;
  /** How long a circuit first stays open before a probe, in ms. Default 2 000. */
  readonly cooldownMs?: number;
  /**
   * The longest cooldown, which doubles after each failed probe. Default 15 × `cooldownMs`
   * (30 000 with the default cooldown).
   */
  readonly maxCooldownMs?: number;
  /** What calls do with an open model: try it last (default) or leave it out. */
  readonly whenOpen?: "move-to-end" | "drop";
  /** Clock in epoch ms. Default: `Date.now`, looked up at call time. */
  readonly now?: () => number;
}

/** One circuit, as `breaker.health()` reports it. */
export interface CircuitHealth {
  readonly provider: string;
  readonly model: string;
  readonly state: BreakerState;
  readonly consecutiveFailures: number;
  /** Failure rate over the window; null with fewer than `minimumCalls` outcomes. */
  readonly failureRate: number | null;
  /** Outcomes in the window (approximate to one bucket, see the module description). */
  readonly windowCalls: number;
  /** When the circuit last opened (epoch ms), null when closed. */
  readonly openedAt: number | null;
  /** When an open circuit becomes half-open (epoch ms), null unless open. */
  readonly probeAt: number | null;
  /** How long the circuit stays open the next time it opens (or now, while open), in ms. */
  readonly cooldownMs: number;
  /** True while a half-open circuit's probe call is in flight. */
  readonly probeInFlight: boolean;
}

/** What a call may do with a model right now. */
export type Admission =
  | { readonly kind: "allow" }
  | { readonly kind: "probe"; readonly token: number }
  | { readonly kind: "open" };

/** A circuit breaker per provider and model, with the calls the client makes of it. */
export interface CircuitBreaker extends StepBreaker {
  readonly settings: Required<Omit<BreakerOptions, "now">>;
  /**
   * Whether a call may send the model in its usual place. A half-open circuit admits one probe
   * at a time; the call must later `recordOutcome` with the token, or `releaseProbe` it.
   */
  admit(provider: string, model: string): Admission;
  /** Counts one outcome (a half-open circuit counts only its probe's, by token). */
  recordOutcome(provider: string, model: string, ok: boolean, probeToken?: number): void;
  /** Frees a probe that ended without telling anything about the model. */
  releaseProbe(provider: string, model: string, token: number): void;
  /** The circuit's state now (an open circuit past its cooldown turns half-open here). */
  state(provider: string, model: string): BreakerState;
  /** Every circuit seen so far, keyed `provider/model`. */
  health(): Record<string, CircuitHealth>;
  /** Buckets a circuit's window holds: at most {@link windowBucketCount}, whatever the traffic. */
  storedBuckets(provider: string, model: string): number;
  /** Calls `listener` with every state change; returns a function that stops it. */
  subscribe(listener: (transition: BreakerTransition) => void): () => void;
}
