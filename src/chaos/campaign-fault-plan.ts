/**
 * @module
 * The campaign's random fault plan: every fault kind the mock providers have (but one that only a
 * continued stream meets), for each provider,
 * as rate-based rules with a seed. A provider's fault rate is spread over the kinds with seeded
 * random weights (every kind gets a share), in a seeded order. The mock checks rules in order and
 * rolls each rule's rate independently, so each rule's rate is set to its share *given that no
 * earlier rule fired*; that makes the chance that an attempt gets kind `k` exactly
 * `rate × weight(k)`, and the chance of any fault exactly `rate`. Kinds that only apply to
 * streams come last, so plain attempts keep exact shares for every other kind.
 */
import {
  createSeededRandom,
  type FaultKind,
  type FaultRule,
  type FaultSchedule,
  faultKinds,
  streamOnlyKinds,
} from "../emulator/mocks/index.ts";
import { type FaultEffect, faultEffects } from "./fault-effects.ts";

/** One provider's total fault rate per attempt. */
export interface ProviderRate {
  readonly provider: string;
  readonly rate: number;
}

export interface FaultPlanInput {
  readonly providers: readonly ProviderRate[];
  readonly seed: number;
  /** The run's window by the mocks' clock (epoch ms): `down` rules apply only inside it. */
  readonly fromMs: number;
  readonly untilMs: number;
  /** `slow-first-byte` delay: under the step timeout, so the answer is late but whole. */
  readonly slowMs: number;
  /** `stream-stall` delay: past the client's stream idle timeout. */
  readonly stallMs: number;
}

/** One kind's share of a provider's attempts (streamed attempts; plain ones skip stream-only kinds). */
export interface PlannedKind {
  readonly kind: FaultKind;
  /** Chance that an attempt gets this kind. */
  readonly probability: number;
}

export interface ProviderPlan {
  readonly provider: string;
  readonly rate: number;
  /** In rule order. */
  readonly kinds: readonly PlannedKind[];
}

export interface CampaignFaultPlan {
  readonly schedule: FaultSchedule;
  readonly providers: readonly ProviderPlan[];
}

/** Kinds that only match streamed attempts (the mock skips them for plain ones). */
export { streamOnlyKinds };

/**
 * Kinds the campaign leaves out: `prefill-refused` only matches a request that continues a
 * prefill, which the campaign's calls (restart policy) never send, so its share would be lost;
 * Guardrails outcomes are applied by the gateway, not by the mock providers the campaign drives.
 */
export const unplannedKinds: ReadonlySet<FaultKind> = new Set<FaultKind>([
  "prefill-refused",
  "guardrail-prompt-blocked",
  "guardrail-response-blocked",
  "guardrail-no-credits",
  "guardrail-unavailable",
]);

const plannedKinds = faultKinds.filter((kind) => !unplannedKinds.has(kind));

/** Shuffles a copy of `items` with `random` (Fisher–Yates). */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

function ruleFor(
  provider: string,
  kind: FaultKind,
  rate: number,
  input: FaultPlanInput,
): FaultRule {
  const rule: FaultRule = { provider, kind, rate };
  switch (kind) {
    case "down":
      return { ...rule, fromMs: input.fromMs, untilMs: input.untilMs };
    case "slow-first-byte":
      return { ...rule, delayMs: input.slowMs };
    case "stream-stall":
      return { ...rule, delayMs: input.stallMs };
    case "server-error-once":
      // "once" per rule by default; a rate-based campaign wants it on every roll that hits.
      return { ...rule, count: Number.MAX_SAFE_INTEGER };
    default:
      return rule;
  }
}

/**
 * Builds the plan. The same input always gives the same plan.
 * @example
 * const plan = planFaults({ providers: [{ provider: "anthropic", rate: 0.3 }], seed: 1, ... });
 * plan.schedule.rules.length; // 19: one rule per fault kind but prefill-refused
 */
export function planFaults(input: FaultPlanInput): CampaignFaultPlan {
  const random = createSeededRandom(input.seed);
  const rules: FaultRule[] = [];
  const providers: ProviderPlan[] = [];
  for (const { provider, rate } of input.providers) {
    const order = [
      ...shuffled(
        plannedKinds.filter((kind) => !streamOnlyKinds.has(kind)),
        random,
      ),
      ...plannedKinds.filter((kind) => streamOnlyKinds.has(kind)),
    ];
    const weights = order.map(() => 0.5 + random());
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    const kinds: PlannedKind[] = [];
    let before = 0;
    for (const [index, kind] of order.entries()) {
      const probability = (rate * weights[index]!) / total;
      const conditional = before >= 1 ? 0 : Math.min(1, probability / (1 - before));
      rules.push(ruleFor(provider, kind, conditional, input));
      kinds.push({ kind, probability });
      before += probability;
    }
    providers.push({ provider, rate, kinds });
  }
  return { schedule: { seed: input.seed, rules }, providers };
}

/** Planned chance per attempt of each effect, for plain or streamed attempts. */
export function plannedEffects(plan: ProviderPlan, stream: boolean): Record<FaultEffect, number> {
  const totals: Record<FaultEffect, number> = {
    fails: 0,
    breaks: 0,
    refuses: 0,
    slows: 0,
    none: 0,
  };
  for (const { kind, probability } of plan.kinds) {
    if (!stream && streamOnlyKinds.has(kind)) continue;
    const effect = stream ? faultEffects[kind].stream : faultEffects[kind].plain;
    totals[effect] += probability;
  }
  return totals;
}
