/**
 * @module
 * What a benchmark is to the runner: an id and heading, and a `run` that measures, registers
 * everything it starts for cleanup, and returns its Markdown block and headline figures.
 */
import type { Cleanup } from "./cleanup.ts";
import type { MachineInfo } from "./machine.ts";

/** What the runner gives each benchmark. */
export interface BenchContext {
  /** `--quick`: fewer calls, a smaller events file; same shape of results. */
  readonly quick: boolean;
  readonly cleanup: Cleanup;
  readonly machine: MachineInfo;
  /** The command that reproduces this benchmark's table. */
  readonly command: string;
  /** Updates the benchmark's progress line. */
  progress(text: string): void;
}

/** A target from the issue, and whether this run met it. */
export interface TargetCheck {
  readonly name: string;
  /** The target as written: `≤ 1.10× at the median`. */
  readonly goal: string;
  /** The measured value, formatted: `1.04×`. */
  readonly measured: string;
  readonly met: boolean;
}

/** What a benchmark returns. */
export interface BenchResult {
  /** Markdown of the section's block (tables and notes). */
  readonly body: string;
  /** One-line figures for the summary table. */
  readonly headline: string;
  readonly targets: readonly TargetCheck[];
  /**
   * How far a second run would land from these figures, measured by this run (noise.ts's
   * `noiseStatement`, or why the figures do not vary): the section's `Noise:` line.
   */
  readonly noise: string;
}

/** A benchmark. */
export interface Benchmark {
  /** Stable id: the block's marker and the `--only` name. */
  readonly id: string;
  /** The `## heading` of its section. */
  readonly heading: string;
  run(context: BenchContext): Promise<BenchResult>;
}
