/**
 * @module
 * Theoretical availability of a route under independent faults.
 *
 * With one attempt per step and step `i` failing with probability `pᵢ`, independently, a call
 * fails only when every step fails: availability = 1 − Π pᵢ. Retries raise it (a step fails only
 * when all of its attempts do, about pᵢᵏ for k attempts, and the client re-sends the chain), so a
 * measured availability at or above 1 − Π pᵢ is what fallback promises.
 *
 * A streamed answer that breaks after its first byte is past the gateway's help (it has answered),
 * but not past the client's: the client goes on with the steps after the one that broke, and tells
 * the caller to drop the text shown. With step `i` failing before answering with probability `fᵢ`
 * and breaking with probability `bᵢ`, a call is answered at step `i` when every earlier step failed
 * or broke and step `i` did neither: availability = Σᵢ (Π_{j<i} (fⱼ + bⱼ))(1 − fᵢ − bᵢ)
 * = 1 − Π (fᵢ + bᵢ), so a streamed call is as available as a plain one whose steps fail as often.
 */

/** One step's chances per attempt. */
export interface StepChances {
  /** Fails before answering (the chain moves on). */
  readonly fails: number;
  /** Answers, then breaks (the client goes on with the next step). 0 for plain calls. */
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
 * Σᵢ (Π_{j<i} (fⱼ + bⱼ))(1 − fᵢ − bᵢ): the availability of a chain whose steps may also break
 * after answering, one attempt each, a break moving on to the next step as a failure does.
 * @example
 * chainAvailability([{ fails: 0.2, breaks: 0.1 }, { fails: 0.1, breaks: 0 }]); // 0.7 + 0.3 × 0.9 = 0.97
 */
export function chainAvailability(steps: readonly StepChances[]): number {
  let reached = 1;
  let answered = 0;
  for (const { fails, breaks } of steps) {
    const lost = Math.min(1, fails + breaks);
    answered += reached * (1 - lost);
    reached *= lost;
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
