/**
 * @module
 * A campaign sized to the machine it runs on. Before the faults go on, a few healthy calls go
 * through the whole chain (client → Worker → emulator → mock providers) and their latency is the
 * baseline: on an idle machine a few milliseconds, on one whose cores are all busy hundreds. Every
 * time budget of the campaign (step timeouts, stream idle timeout, deadlines, the deadline
 * tolerance) grows by the same factor when the baseline calls for it, so what the faults do
 * relative to the timeouts (a slow first byte stays under the step timeout, a stall outlasts the
 * idle timeout) holds on a slow machine too. During the run the event loop's delay is measured;
 * when it was large next to the timeouts, the report names CPU starvation as the cause of what
 * failed.
 */
import { availableParallelism } from "node:os";
import type { GatewayClient } from "../client/index.ts";
import type { EventLoopLag, StarvationVerdict } from "../demo/index.ts";
import type { CampaignSettings } from "./options.ts";
import { runCalls } from "./traffic.ts";

/** How fast the machine answers healthy calls, measured before the campaign. */
export interface MachineBaseline {
  /** Healthy calls sent. */
  readonly calls: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
}

/** What the campaign learned about the machine. */
export interface MachineFigures {
  readonly cores: number;
  /** Undefined when the campaign was not sized (`sizeToMachine: false`). */
  readonly baseline: MachineBaseline | undefined;
  /** The factor every time budget was multiplied by (1 on a machine fast enough). */
  readonly scale: number;
  /** The event loop's delay during the calls. */
  readonly lag: EventLoopLag;
  readonly starvation: StarvationVerdict;
}

/** A step timeout is at least this many healthy-call latencies (p90). */
export const timeoutPerBaseline = 8;

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/**
 * Sends `calls` healthy calls, `concurrency` at a time, and returns their latency. The caller
 * sends them before any fault is set and clears the mocks' attempt log afterwards.
 */
export async function measureBaseline(options: {
  readonly client: GatewayClient;
  readonly route: string;
  readonly calls: number;
  readonly concurrency: number;
}): Promise<MachineBaseline> {
  const latencies: number[] = [];
  await runCalls({
    client: options.client,
    route: options.route,
    calls: options.calls,
    concurrency: options.concurrency,
    seed: 0,
    streamShare: 0,
    deadlineMs: 60_000,
    idPrefix: "baseline-",
    onOutcome: (outcome) => latencies.push(outcome.wallMs),
  });
  // The first round warms connections and compiles code; the rest is the machine's pace.
  const settled = latencies.slice(Math.min(options.concurrency, latencies.length - 1));
  const sorted = [...settled].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    calls: latencies.length,
    p50Ms: round(quantile(sorted, 0.5)),
    p90Ms: round(quantile(sorted, 0.9)),
  };
}

/** The factor that makes the step timeout cap at least `timeoutPerBaseline` baselines. */
export function scaleFor(
  settings: Pick<CampaignSettings, "timeoutCapMs">,
  baseline: MachineBaseline,
): number {
  return Math.max(1, (baseline.p90Ms * timeoutPerBaseline) / settings.timeoutCapMs);
}

/** The settings with every time budget multiplied by `scale` (rounded up to 50 ms). */
export function scaleSettings(settings: CampaignSettings, scale: number): CampaignSettings {
  if (scale <= 1) return settings;
  const up = (ms: number) => Math.ceil((ms * scale) / 50) * 50;
  const timeoutCapMs = up(settings.timeoutCapMs);
  const deadlineMs = up(settings.deadlineMs);
  return {
    ...settings,
    timeoutCapMs,
    streamIdleTimeoutMs: up(settings.streamIdleTimeoutMs),
    deadlineMs,
    tightDeadline: {
      share: settings.tightDeadline.share,
      ms: Math.min(deadlineMs, up(settings.tightDeadline.ms)),
    },
    deadlineToleranceMs: up(settings.deadlineToleranceMs),
  };
}

/** The machine's cores, for the report. */
export function machineCores(): number {
  return availableParallelism();
}
