/**
 * @module
 * A circuit breaker per provider. Closed, it counts outcomes; it opens after `failureThreshold`
 * consecutive failures, or when at least `minimumCalls` outcomes in the last `windowMs` fail at
 * a rate of `failureRateThreshold` or more. Open, the client moves the provider to the end of
 * the chain (or drops it), so calls stop paying for its timeouts. After `cooldownMs` it is
 * half-open: exactly one call at a time (the probe) includes the provider in its usual place; the
 * probe's success closes the circuit, its failure opens it again. Time comes from an injected
 * `now`, so tests drive it without sleeping.
 *
 * Memory per provider is constant whatever the call rate: the failure-rate window is an
 * {@link OutcomeWindow} of {@link windowBucketCount} time buckets, so it slides one bucket (a
 * tenth of `windowMs`) at a time.
 */

import { OutcomeWindow } from "./outcome-window.ts";

export { windowBucketCount } from "./outcome-window.ts";

/** A circuit's state. */
export type BreakerState = "closed" | "open" | "half-open";

/** Why a circuit changed state. */
export type BreakerReason =
  | "consecutive_failures"
  | "failure_rate"
  | "cooldown_elapsed"
  | "probe_succeeded"
  | "probe_failed";

/** Circuit breaker settings; every field has a default. */
export interface BreakerOptions {
  /** Consecutive failures that open the circuit. Default 5. */
  readonly failureThreshold?: number;
  /** Failure rate (0–1) over the window that opens the circuit. Default 0.5. */
  readonly failureRateThreshold?: number;
  /**
   * Length of the failure-rate window, in ms. Default 60 000. The window moves in steps of
   * `windowMs / windowBucketCount`, so its rate is approximate to one such step.
   */
  readonly windowMs?: number;
  /** Outcomes the window needs before its rate counts. Default 10. */
  readonly minimumCalls?: number;
  /** How long a circuit stays open before a probe, in ms. Default 30 000. */
  readonly cooldownMs?: number;
  /** What calls do with an open provider: try it last (default) or leave it out. */
  readonly whenOpen?: "move-to-end" | "drop";
}

/** One change of a circuit's state, as given to `recorder.breaker`. */
export interface BreakerTransition {
  /** ISO-8601 time of the change. */
  readonly time: string;
  readonly provider: string;
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly reason: BreakerReason;
  readonly consecutiveFailures: number;
  /** Failure rate over the window when the change happened; null with too few outcomes. */
  readonly failureRate: number | null;
}

/** One provider's circuit, as `client.health()` reports it. */
export interface ProviderHealth {
  readonly provider: string;
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
  /** True while a half-open circuit's probe call is in flight. */
  readonly probeInFlight: boolean;
}

/** What a call may do with a provider right now. */
export type Admission =
  | { readonly kind: "allow" }
  | { readonly kind: "probe"; readonly token: number }
  | { readonly kind: "open" };

interface Circuit {
  state: BreakerState;
  consecutiveFailures: number;
  /** Outcomes of the last `windowMs`, for the failure rate. */
  readonly window: OutcomeWindow;
  openedAt: number | null;
  probeToken: number | null;
}

type Settings = Required<BreakerOptions>;

export const defaultBreakerOptions: Settings = {
  failureThreshold: 5,
  failureRateThreshold: 0.5,
  windowMs: 60_000,
  minimumCalls: 10,
  cooldownMs: 30_000,
  whenOpen: "move-to-end",
};

const allowed: Admission = { kind: "allow" };

/** Per-provider circuits sharing one clock and one transition listener. */
export class CircuitBreaker {
  readonly settings: Settings;
  readonly #circuits = new Map<string, Circuit>();
  readonly #now: () => number;
  readonly #onTransition: (transition: BreakerTransition) => void;
  #nextToken = 1;

  constructor(
    options: BreakerOptions,
    now: () => number,
    onTransition: (transition: BreakerTransition) => void,
  ) {
    this.settings = { ...defaultBreakerOptions, ...definedOnly(options) };
    this.#now = now;
    this.#onTransition = onTransition;
  }

  /**
   * Whether a call may include `provider` in its usual place. A half-open circuit admits one
   * probe at a time; the call must later `record` with the token, or `releaseProbe` it.
   */
  admit(provider: string): Admission {
    const circuit = this.#current(provider);
    if (circuit.state === "closed") return allowed;
    if (circuit.state === "half-open" && circuit.probeToken === null) {
      circuit.probeToken = this.#nextToken++;
      return { kind: "probe", token: circuit.probeToken };
    }
    return { kind: "open" };
  }

  /**
   * Counts one outcome. Closed circuits count every outcome; a half-open circuit only its
   * probe's (pass the token `admit` gave); an open circuit ignores outcomes.
   */
  record(provider: string, ok: boolean, probeToken?: number): void {
    const circuit = this.#current(provider);
    const now = this.#now();
    if (circuit.state === "half-open") {
      if (probeToken === undefined || circuit.probeToken !== probeToken) return;
      circuit.probeToken = null;
      if (ok) this.#close(provider, circuit);
      else this.#open(provider, circuit, "probe_failed", now);
      return;
    }
    if (circuit.state === "open") return;
    circuit.window.record(ok, now);
    circuit.consecutiveFailures = ok ? 0 : circuit.consecutiveFailures + 1;
    if (ok) return;
    if (circuit.consecutiveFailures >= this.settings.failureThreshold) {
      this.#open(provider, circuit, "consecutive_failures", now);
      return;
    }
    const rate = this.#failureRate(circuit, now);
    if (rate !== null && rate >= this.settings.failureRateThreshold) {
      this.#open(provider, circuit, "failure_rate", now);
    }
  }

  /** Frees a probe that ended without telling anything about the provider. */
  releaseProbe(provider: string, token: number): void {
    const circuit = this.#circuits.get(provider);
    if (circuit?.state === "half-open" && circuit.probeToken === token) circuit.probeToken = null;
  }

  /** The circuit's state now (an open circuit past its cooldown turns half-open here). */
  state(provider: string): BreakerState {
    return this.#current(provider).state;
  }

  /**
   * Buckets the provider's window holds (at most {@link windowBucketCount}, whatever the
   * traffic); 0 for a provider not seen yet. For tests and diagnostics.
   */
  storedBuckets(provider: string): number {
    return this.#circuits.get(provider)?.window.storedBuckets ?? 0;
  }

  /** Every named provider's circuit, plus any other provider seen so far. */
  health(providers: Iterable<string>): Record<string, ProviderHealth> {
    const names = new Set([...providers, ...this.#circuits.keys()]);
    const report: Record<string, ProviderHealth> = {};
    for (const provider of [...names].sort()) {
      const circuit = this.#current(provider);
      const now = this.#now();
      report[provider] = {
        provider,
        state: circuit.state,
        consecutiveFailures: circuit.consecutiveFailures,
        failureRate: this.#failureRate(circuit, now),
        windowCalls: circuit.window.counts(now).calls,
        openedAt: circuit.openedAt,
        probeAt:
          circuit.state === "open" && circuit.openedAt !== null
            ? circuit.openedAt + this.settings.cooldownMs
            : null,
        probeInFlight: circuit.probeToken !== null,
      };
    }
    return report;
  }

  #current(provider: string): Circuit {
    let circuit = this.#circuits.get(provider);
    if (circuit === undefined) {
      circuit = {
        state: "closed",
        consecutiveFailures: 0,
        window: new OutcomeWindow(this.settings.windowMs),
        openedAt: null,
        probeToken: null,
      };
      this.#circuits.set(provider, circuit);
    }
    const now = this.#now();
    if (
      circuit.state === "open" &&
      circuit.openedAt !== null &&
      now - circuit.openedAt >= this.settings.cooldownMs
    ) {
      this.#move(provider, circuit, "half-open", "cooldown_elapsed", now);
    }
    return circuit;
  }

  #open(provider: string, circuit: Circuit, reason: BreakerReason, now: number): void {
    circuit.openedAt = now;
    this.#move(provider, circuit, "open", reason, now);
  }

  #close(provider: string, circuit: Circuit): void {
    const now = this.#now();
    this.#move(provider, circuit, "closed", "probe_succeeded", now);
    circuit.consecutiveFailures = 0;
    circuit.window.clear();
    circuit.openedAt = null;
  }

  #move(
    provider: string,
    circuit: Circuit,
    to: BreakerState,
    reason: BreakerReason,
    now: number,
  ): void {
    const from = circuit.state;
    circuit.state = to;
    this.#onTransition({
      time: new Date(now).toISOString(),
      provider,
      from,
      to,
      reason,
      consecutiveFailures: circuit.consecutiveFailures,
      failureRate: this.#failureRate(circuit, now),
    });
  }

  #failureRate(circuit: Circuit, now: number): number | null {
    const { calls, failures } = circuit.window.counts(now);
    if (calls < this.settings.minimumCalls) return null;
    return failures / calls;
  }
}

function definedOnly(options: BreakerOptions): Partial<Settings> {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<Settings>;
}
