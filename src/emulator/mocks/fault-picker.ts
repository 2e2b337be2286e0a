/**
 * @module
 * Picks the fault for one attempt from a fault schedule. Rules are checked in order; a rule
 * applies when its provider and model match, the attempt falls in its `fromMs`–`untilMs` window
 * (from inclusive, until exclusive), it has not used up its `count`, and its `rate` roll (seeded)
 * succeeds. A rule whose roll fails lets the next rules be checked. The first rule that applies
 * is the fault. Stream-only kinds match only streamed requests, and `prefill-refused` only
 * requests that end with an assistant message. Guardrails kinds belong to the gateway's plan.
 */

import { createSeededRandom } from "./random.ts";
import type { FaultKind, FaultRule, FaultSchedule } from "./types.ts";

/** The seed used when a schedule gives none, so runs are reproducible by default. */
export const defaultFaultSeed = 1;

/** Faults that only make sense for a streamed answer; plain requests never match them. */
export const streamOnlyKinds: ReadonlySet<FaultKind> = new Set<FaultKind>([
  "missing-done",
  "stream-error",
  "stream-unfinished",
]);

/**
 * Guardrails outcomes: the gateway applies these (`features/guardrails.ts`), so the mocks' picker
 * never picks them and the gateway's picker picks nothing else.
 */
export const gatewayKinds: ReadonlySet<FaultKind> = new Set<FaultKind>([
  "guardrail-prompt-blocked",
  "guardrail-response-blocked",
  "guardrail-no-credits",
  "guardrail-unavailable",
]);

/** Which side applies a picker's faults: the mock providers, or the gateway (Guardrails). */
export type FaultSide = "provider" | "gateway";

/** What the picker needs to know about an attempt. */
export interface FaultTarget {
  readonly provider: string;
  readonly model: string | null;
  readonly stream: boolean;
  /** True when the request ends with an assistant message (a prefill). */
  readonly prefill: boolean;
  /** Epoch ms by the mock's clock. */
  readonly at: number;
}

/** How many attempts a rule may fault: its `count`, 1 for `server-error-once`, else unlimited. */
function limitOf(rule: FaultRule): number {
  if (rule.count !== undefined) return rule.count;
  return rule.kind === "server-error-once" ? 1 : Number.POSITIVE_INFINITY;
}

function matches(rule: FaultRule, target: FaultTarget, side: FaultSide): boolean {
  if (gatewayKinds.has(rule.kind) !== (side === "gateway")) return false;
  if (rule.provider !== undefined && rule.provider !== target.provider) return false;
  if (rule.model !== undefined && rule.model !== target.model) return false;
  if (rule.fromMs !== undefined && target.at < rule.fromMs) return false;
  if (rule.untilMs !== undefined && target.at >= rule.untilMs) return false;
  if (rule.kind === "prefill-refused" && !target.prefill) return false;
  return target.stream || !streamOnlyKinds.has(rule.kind);
}

/** A schedule with its state: per-rule use counts and the seeded random sequence. */
export class FaultPicker {
  readonly schedule: FaultSchedule;
  readonly #used: number[];
  readonly #random: () => number;
  readonly #side: FaultSide;

  constructor(schedule: FaultSchedule, side: FaultSide = "provider") {
    this.schedule = schedule;
    this.#side = side;
    this.#used = schedule.rules.map(() => 0);
    this.#random = createSeededRandom(schedule.seed ?? defaultFaultSeed);
  }

  /**
   * The rule that faults this attempt, or `undefined` for a healthy answer. Counts the use.
   * `kinds` limits the rules considered (the gateway checks a prompt and a response apart).
   */
  pick(target: FaultTarget, kinds?: ReadonlySet<FaultKind>): FaultRule | undefined {
    for (const [index, rule] of this.schedule.rules.entries()) {
      if (kinds !== undefined && !kinds.has(rule.kind)) continue;
      if (!matches(rule, target, this.#side)) continue;
      const used = this.#used[index] ?? 0;
      if (used >= limitOf(rule)) continue;
      if (rule.rate !== undefined && rule.rate < 1 && this.#random() >= rule.rate) continue;
      this.#used[index] = used + 1;
      return rule;
    }
    return undefined;
  }
}
