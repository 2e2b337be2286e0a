/**
 * @module
 * Theoretical availability of a route under independent faults.
 *
 * With one attempt per step and step `i` failing with probability `pᵢ`, independently, a call
 * fails only when every step fails: availability = 1 − Π pᵢ. Retries raise it (a step fails only
 * when all of its attempts do, about pᵢᵏ for k attempts, and the client re-sends the chain), so a
 * measured availability at or above 1 − Π pᵢ is what fallback promises.
 *
 * A streamed answer that breaks after the caller has read text cannot be retried or fallen back.
 * (One that breaks before its first text does fall back, so counting every break, as below, gives
 * a lower bound.) With step `i` failing before answering with probability `fᵢ` and breaking
 * with probability `bᵢ`, a call is answered at step `i` when every earlier step failed and step `i`
 * neither failed nor broke: availability = Σᵢ (Π_{j<i} fⱼ)(1 − fᵢ − bᵢ). With every `bᵢ` = 0 this
 * is 1 − Π fᵢ again.
 */

/** One step's chances per attempt. */
export interface StepChances {
  /** Fails before answering (the chain moves on). */
  readonly fails: number;
  /** Answers, then breaks (the call fails). 0 for plain calls. */
  readonly breaks: number;
}

/**
 * 1 − Π pᵢ: the availability of a chain whose steps fail independently, one attempt each.
 * @example
 * theoreticalAvailability([0.3, 0.2, 0.1]); // 0.994
 */
export function theoreticalAvailability(failureRates: readonly number[]): number {
  return 1 - failureRates.reduce((product, rate) => product * rate, 1);
}

/**
 * Σᵢ (Π_{j<i} fⱼ)(1 − fᵢ − bᵢ): the availability of a chain whose steps may also break after
 * answering, one attempt each.
 * @example
 * chainAvailability([{ fails: 0.2, breaks: 0.1 }, { fails: 0.1, breaks: 0 }]); // 0.7 + 0.2 × 0.9 = 0.88
 */
export function chainAvailability(steps: readonly StepChances[]): number {
  let reached = 1;
  let answered = 0;
  for (const { fails, breaks } of steps) {
    answered += reached * Math.max(0, 1 - fails - breaks);
    reached *= fails;
  }
  return answered;
}

/** Expected availability of a mix of plain and streamed calls. */
export function expectedAvailability(options: {
  readonly plainCalls: number;
  readonly streamCalls: number;
  readonly plainSteps: readonly StepChances[];
  readonly streamSteps: readonly StepChances[];
}): number {
  const total = options.plainCalls + options.streamCalls;
  if (total === 0) return 1;
  return (
    (options.plainCalls * chainAvailability(options.plainSteps) +
      options.streamCalls * chainAvailability(options.streamSteps)) /
    total
  );
}
