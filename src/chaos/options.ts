/**
 * @module
 * A fault campaign's settings: how many calls, how many at once, the seed, the fault rate of each
 * route step's provider, how many calls stream, how often keys rotate, and the low timeouts that
 * keep a hang down to hundreds of milliseconds. `campaignSettings` fills in the defaults of the
 * full run (`stepwise chaos`) or the quick one (`--quick`, and the tests).
 */
import { StepwiseError } from "../errors/index.ts";

/** What the caller may set; everything else has a default. */
export interface CampaignInput {
  /** Calls to send. Default 3000 (quick: 300). */
  readonly calls?: number;
  /** Calls in flight at once. Default 16 (quick: 12). */
  readonly concurrency?: number;
  /** Seed of the fault plan and of the choice of which calls stream. Default 1. */
  readonly seed?: number;
  /** The quick campaign's defaults (under a minute). */
  readonly quick?: boolean;
  /** Gateway id; the config's first gateway by default. */
  readonly gateway?: string;
  /** Route whose steps' providers get the faults. Default `default`. */
  readonly route?: string;
  /** Fault rate per step's provider, in route order. Default 0.3, 0.2, 0.1 (then 0.1). */
  readonly rates?: readonly number[];
  /** Share of calls made with `client.stream`. Default 0.25. */
  readonly streamShare?: number;
  /** Key rotations per provider during the run. Default 3 (quick: 2). */
  readonly rotationsPerProvider?: number;
  /** Cap on every step timeout (ms to first byte). Default 500. */
  readonly timeoutCapMs?: number;
  /** Deadline of a call, in ms. Default 3000. */
  readonly deadlineMs?: number;
  /** Share of calls with a tight deadline (twice the timeout cap), so some run into it. Default 0.1. */
  readonly tightDeadlineShare?: number;
  /** How much past its deadline a call may end before the check fails, in ms. Default 250. */
  readonly deadlineToleranceMs?: number;
  /** How far below the expected availability the measured one may fall. Default 0.01 (quick: 0.04). */
  readonly availabilityTolerance?: number;
  /**
   * Measure healthy calls first and stretch every time budget when the machine is slow (see
   * `machine.ts`). Default true.
   */
  readonly sizeToMachine?: boolean;
}

/** Every setting, resolved. */
export interface CampaignSettings {
  readonly calls: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly quick: boolean;
  readonly gateway: string | undefined;
  readonly route: string;
  readonly rates: readonly number[];
  readonly streamShare: number;
  readonly rotationsPerProvider: number;
  readonly timeoutCapMs: number;
  /** How long a stream may stay silent before the client gives up; the timeout cap. */
  readonly streamIdleTimeoutMs: number;
  readonly deadlineMs: number;
  readonly tightDeadline: { readonly share: number; readonly ms: number };
  readonly deadlineToleranceMs: number;
  readonly availabilityTolerance: number;
  /** How often memory is sampled (each sample after a full garbage collection), in ms. */
  readonly sampleIntervalMs: number;
  readonly sizeToMachine: boolean;
}

/** The fault rate of the route's first, second, third… provider when none is given. */
export const defaultRates: readonly number[] = [0.3, 0.2, 0.1];

function invalid(message: string): StepwiseError {
  return new StepwiseError({ code: "chaos_option_invalid", message });
}

function wholeAtLeast(name: string, value: number, minimum: number): number {
  if (!Number.isInteger(value) || value < minimum) {
    throw invalid(`${name} must be a whole number of at least ${minimum}, not ${value}`);
  }
  return value;
}

function fraction(name: string, value: number, upper = 1): number {
  if (!Number.isFinite(value) || value < 0 || value > upper) {
    throw invalid(`${name} must be between 0 and ${upper}, not ${value}`);
  }
  return value;
}

/**
 * Resolves a campaign's settings.
 * @throws {StepwiseError} `chaos_option_invalid` naming the bad setting and its allowed range.
 */
export function campaignSettings(input: CampaignInput = {}): CampaignSettings {
  const quick = input.quick ?? false;
  const rates = (input.rates ?? defaultRates).map((rate, index) =>
    // A provider that fails every attempt leaves nothing to measure but the fallback.
    fraction(`rate ${index + 1}`, rate, 0.9),
  );
  if (rates.length === 0) throw invalid("give at least one fault rate, e.g. 0.3,0.2,0.1");
  const timeoutCapMs = wholeAtLeast("timeout cap", input.timeoutCapMs ?? 500, 50);
  const deadlineMs = wholeAtLeast("deadline", input.deadlineMs ?? 3_000, 100);
  return {
    calls: wholeAtLeast("calls", input.calls ?? (quick ? 300 : 3_000), 1),
    concurrency: wholeAtLeast("concurrency", input.concurrency ?? (quick ? 12 : 16), 1),
    seed: wholeAtLeast("seed", input.seed ?? 1, 0),
    quick,
    gateway: input.gateway,
    route: input.route ?? "default",
    rates,
    streamShare: fraction("stream share", input.streamShare ?? 0.25),
    rotationsPerProvider: wholeAtLeast(
      "rotations per provider",
      input.rotationsPerProvider ?? (quick ? 2 : 3),
      0,
    ),
    timeoutCapMs,
    streamIdleTimeoutMs: timeoutCapMs,
    deadlineMs,
    tightDeadline: {
      share: fraction("tight deadline share", input.tightDeadlineShare ?? 0.1),
      ms: Math.min(deadlineMs, timeoutCapMs * 2),
    },
    deadlineToleranceMs: wholeAtLeast("deadline tolerance", input.deadlineToleranceMs ?? 250, 0),
    availabilityTolerance: fraction(
      "availability tolerance",
      input.availabilityTolerance ?? (quick ? 0.04 : 0.01),
    ),
    sampleIntervalMs: quick ? 250 : 1_000,
    sizeToMachine: input.sizeToMachine ?? true,
  };
}

/** The rate of the step at `index`: the given rate, else the last one given. */
export function rateOfStep(settings: Pick<CampaignSettings, "rates">, index: number): number {
  return settings.rates[index] ?? settings.rates.at(-1) ?? 0;
}
