/**
 * @module
 * Counts what the mock providers did, from their attempt log: attempts per provider (plain and
 * streamed), the faults injected by kind and by effect, and attempts refused for their key. The
 * campaign drains the mocks' log into the tally as it goes, so memory stays bounded.
 */
import type { FaultKind, MockAttempt } from "../emulator/mocks/index.ts";
import { effectOf, type FaultEffect } from "./fault-effects.ts";

export type EffectCounts = Record<FaultEffect, number>;

/** One provider's counts. */
export interface ProviderTally {
  readonly provider: string;
  readonly attempts: { plain: number; stream: number };
  readonly effects: { plain: EffectCounts; stream: EffectCounts };
  /** Faults injected, by kind. */
  readonly kinds: Partial<Record<FaultKind, number>>;
  /** Attempts refused for a missing, wrong or revoked key. */
  refusedKeys: number;
}

/** Injected rates per attempt, measured. */
export interface InjectedRates {
  /** Plain attempts that failed before answering. */
  readonly plainFails: number;
  /** Streamed attempts that failed before answering. */
  readonly streamFails: number;
  /** Streamed attempts that broke after answering. */
  readonly streamBreaks: number;
  /** All attempts that failed before answering: the provider's effective failure rate. */
  readonly fails: number;
  /** All attempts with any fault (the rate the plan asked for). */
  readonly faulted: number;
}

function emptyCounts(): EffectCounts {
  return { fails: 0, breaks: 0, refuses: 0, slows: 0, none: 0 };
}

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}

/** Counts attempts as they are drained from the mocks. */
export class AttemptTally {
  readonly #providers = new Map<string, ProviderTally>();

  /** Adds a batch of attempts. */
  add(attempts: readonly MockAttempt[]): void {
    for (const attempt of attempts) {
      const tally = this.provider(attempt.provider);
      const kind = attempt.stream ? "stream" : "plain";
      tally.attempts[kind] += 1;
      tally.effects[kind][effectOf(attempt.fault, attempt.stream)] += 1;
      if (attempt.fault !== null) {
        tally.kinds[attempt.fault] = (tally.kinds[attempt.fault] ?? 0) + 1;
      }
      if (attempt.auth !== "valid") tally.refusedKeys += 1;
    }
  }

  /** One provider's counts (zeros when it saw no attempt). */
  provider(provider: string): ProviderTally {
    let tally = this.#providers.get(provider);
    if (tally === undefined) {
      tally = {
        provider,
        attempts: { plain: 0, stream: 0 },
        effects: { plain: emptyCounts(), stream: emptyCounts() },
        kinds: {},
        refusedKeys: 0,
      };
      this.#providers.set(provider, tally);
    }
    return tally;
  }

  /** Every provider that saw an attempt. */
  providers(): ProviderTally[] {
    return [...this.#providers.values()];
  }

  /** Attempts refused for their key, over every provider. */
  get refusedKeys(): number {
    return this.providers().reduce((sum, tally) => sum + tally.refusedKeys, 0);
  }

  /** Every kind injected at least once, over every provider. */
  kindsInjected(): Set<FaultKind> {
    const kinds = new Set<FaultKind>();
    for (const tally of this.providers()) {
      for (const kind of Object.keys(tally.kinds) as FaultKind[]) kinds.add(kind);
    }
    return kinds;
  }

  /** Measured rates per attempt for one provider. */
  rates(provider: string): InjectedRates {
    const { attempts, effects } = this.provider(provider);
    const all = attempts.plain + attempts.stream;
    const kinds = this.provider(provider).kinds;
    const faulted = Object.values(kinds).reduce((sum, count) => sum + (count ?? 0), 0);
    return {
      plainFails: ratio(effects.plain.fails, attempts.plain),
      streamFails: ratio(effects.stream.fails, attempts.stream),
      streamBreaks: ratio(effects.stream.breaks, attempts.stream),
      fails: ratio(effects.plain.fails + effects.stream.fails, all),
      faulted: ratio(faulted, all),
    };
  }
}
