/**
 * @module
 * `stepwise-gateway/client/breaker`: a circuit breaker per provider and model, for
 * `createGatewayClient({ breaker: createCircuitBreaker() })`. A separate entry: a client without
 * one does not carry it.
 *
 * Closed, a circuit counts outcomes; it opens after `failureThreshold` consecutive failures, or
 * when at least `minimumCalls` outcomes in the last `windowMs` fail at a rate of
 * `failureRateThreshold` or more. Open, calls move the model to the end of the chain (or drop
 * it), so they stop paying for its failures. After its cooldown the circuit is half-open: exactly
 * one call at a time (the probe) sends the model in its usual place. The probe's success closes
 * the circuit and resets the cooldown to `cooldownMs`; its failure opens it again for twice the
 * last cooldown, up to `maxCooldownMs`. So a model back after a short outage serves again within
 * about one base cooldown, and a long outage costs one request per (growing) cooldown.
 *
 * Time comes from `now`, so tests drive it without sleeping. Memory per circuit is constant: the
 * failure-rate window is a ring of time buckets (`failure-window.ts`); the settings and their
 * checks are in `breaker-settings.ts`.
 */

import { breakerSettings } from "./breaker-settings.ts";
import type {
  Admission,
  BreakerOptions,
  BreakerReason,
  BreakerState,
  BreakerTransition,
  CircuitBreaker,
  CircuitHealth,
} from "./breaker-types.ts";
import {
  countOutcome,
  type WindowBucket,
  windowBucketCount,
  windowCounts,
} from "./failure-window.ts";
import type { RouteStep } from "./types.ts";

export { defaultBreakerOptions } from "./breaker-settings.ts";
export type {
  Admission,
  BreakerOptions,
  BreakerReason,
  BreakerState,
  BreakerTransition,
  CircuitBreaker,
  CircuitHealth,
} from "./breaker-types.ts";
export { windowBucketCount } from "./failure-window.ts";

interface Circuit {
  readonly provider: string;
  readonly model: string;
  state: BreakerState;
  consecutiveFailures: number;
  /** The failure-rate window (`failure-window.ts`). */
  readonly buckets: WindowBucket[];
  openedAt: number | null;
  cooldownMs: number;
  probeToken: number | null;
}

/**
 * Creates a circuit breaker.
 * @throws InvalidOptionsError naming each setting out of range.
 * @example
 * import { createCircuitBreaker } from "stepwise-gateway/client/breaker";
 * const breaker = createCircuitBreaker({ cooldownMs: 2_000 });
 * const client = createGatewayClient({ accountId, gatewayId, routes, breaker });
 * breaker.health()["anthropic/claude-sonnet-4-5"]?.state; // "closed"
 */
export function createCircuitBreaker(options: BreakerOptions = {}): CircuitBreaker {
  const settings = breakerSettings(options);
  const circuits = new Map<string, Circuit>();
  const listeners = new Set<(transition: BreakerTransition) => void>();
  const bucketMs = settings.windowMs / windowBucketCount;
  const now = () => (options.now ?? Date.now)();
  let nextToken = 1;

  const counts = (circuit: Circuit, time: number) =>
    windowCounts(circuit.buckets, time, bucketMs, settings.minimumCalls);

  const move = (circuit: Circuit, to: BreakerState, reason: BreakerReason, time: number) => {
    const from = circuit.state;
    circuit.state = to;
    const transition: BreakerTransition = {
      time: new Date(time).toISOString(),
      provider: circuit.provider,
      model: circuit.model,
      from,
      to,
      reason,
      consecutiveFailures: circuit.consecutiveFailures,
      failureRate: counts(circuit, time).rate,
      cooldownMs: circuit.cooldownMs,
    };
    for (const listener of listeners) {
      try {
        listener(transition);
      } catch {
        // A listener that throws never breaks the call that changed the circuit.
      }
    }
  };

  const open = (circuit: Circuit, reason: BreakerReason, time: number) => {
    circuit.openedAt = time;
    move(circuit, "open", reason, time);
  };

  /** The circuit of a model (created closed); an open one past its cooldown turns half-open. */
  const circuitOf = (provider: string, model: string): Circuit => {
    const key = `${provider}/${model}`;
    let circuit = circuits.get(key);
    if (circuit === undefined) {
      circuit = {
        provider,
        model,
        state: "closed",
        consecutiveFailures: 0,
        buckets: [],
        openedAt: null,
        cooldownMs: settings.cooldownMs,
        probeToken: null,
      };
      circuits.set(key, circuit);
    }
    const time = now();
    if (circuit.state === "open" && time - (circuit.openedAt ?? time) >= circuit.cooldownMs) {
      move(circuit, "half-open", "cooldown_elapsed", time);
    }
    return circuit;
  };

  const admit = (provider: string, model: string): Admission => {
    const circuit = circuitOf(provider, model);
    if (circuit.state === "closed") return { kind: "allow" };
    if (circuit.state === "half-open" && circuit.probeToken === null) {
      circuit.probeToken = nextToken++;
      return { kind: "probe", token: circuit.probeToken };
    }
    return { kind: "open" };
  };

  const recordOutcome = (provider: string, model: string, ok: boolean, probeToken?: number) => {
    const circuit = circuitOf(provider, model);
    const time = now();
    if (circuit.state === "half-open") {
      if (probeToken === undefined || circuit.probeToken !== probeToken) return;
      circuit.probeToken = null;
      if (ok) {
        circuit.consecutiveFailures = 0;
        circuit.buckets.length = 0;
        circuit.openedAt = null;
        circuit.cooldownMs = settings.cooldownMs;
        move(circuit, "closed", "probe_succeeded", time);
      } else {
        circuit.cooldownMs = Math.min(settings.maxCooldownMs, circuit.cooldownMs * 2);
        open(circuit, "probe_failed", time);
      }
      return;
    }
    if (circuit.state === "open") return;
    countOutcome(circuit.buckets, ok, time, bucketMs);
    if (ok) {
      circuit.consecutiveFailures = 0;
      return;
    }
    circuit.consecutiveFailures++;
    if (circuit.consecutiveFailures >= settings.failureThreshold) {
      open(circuit, "consecutive_failures", time);
      return;
    }
    const rate = counts(circuit, time).rate;
    if (rate !== null && rate >= settings.failureRateThreshold) open(circuit, "failure_rate", time);
  };

  const releaseProbe = (provider: string, model: string, token: number) => {
    const circuit = circuits.get(`${provider}/${model}`);
    if (circuit?.state === "half-open" && circuit.probeToken === token) circuit.probeToken = null;
  };

  return {
    settings,
    admit,
    recordOutcome,
    releaseProbe,
    order<Step extends RouteStep>(
      steps: readonly Step[],
      probes: Map<string, number>,
    ): readonly Step[] {
      const back: Step[] = [];
      const front: Step[] = [];
      const admitted = new Map<string, boolean>();
      for (const step of steps) {
        const key = `${step.provider}/${step.model}`;
        let ok = admitted.get(key) ?? probes.has(key);
        if (!admitted.has(key) && !ok) {
          const admission = admit(step.provider, step.model);
          if (admission.kind === "probe") probes.set(key, admission.token);
          ok = admission.kind !== "open";
        }
        admitted.set(key, ok);
        (ok ? front : back).push(step);
      }
      if (back.length === 0) return steps;
      return settings.whenOpen === "drop" && front.length > 0 ? front : [...front, ...back];
    },
    record(step: RouteStep, ok: boolean, probes: Map<string, number>) {
      recordOutcome(step.provider, step.model, ok, probes.get(`${step.provider}/${step.model}`));
    },
    release(probes: Map<string, number>) {
      for (const [key, token] of probes) {
        const circuit = circuits.get(key);
        if (circuit !== undefined) releaseProbe(circuit.provider, circuit.model, token);
      }
      probes.clear();
    },
    state: (provider, model) => circuitOf(provider, model).state,
    health() {
      const report: Record<string, CircuitHealth> = {};
      for (const key of [...circuits.keys()].sort()) {
        const circuit = circuitOf(circuits.get(key)!.provider, circuits.get(key)!.model);
        const { calls, rate } = counts(circuit, now());
        report[key] = {
          provider: circuit.provider,
          model: circuit.model,
          state: circuit.state,
          consecutiveFailures: circuit.consecutiveFailures,
          failureRate: rate,
          windowCalls: calls,
          openedAt: circuit.openedAt,
          probeAt:
            circuit.state === "open" && circuit.openedAt !== null
              ? circuit.openedAt + circuit.cooldownMs
              : null,
          cooldownMs: circuit.cooldownMs,
          probeInFlight: circuit.probeToken !== null,
        };
      }
      return report;
    },
    storedBuckets: (provider, model) => circuits.get(`${provider}/${model}`)?.buckets.length ?? 0,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
