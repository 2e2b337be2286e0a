/**
 * @module
 * What a campaign found: its figures and its checks, built from what the run collected. The
 * result is plain data (it is what `stepwise chaos --json` prints); `ok` is false when any check
 * failed.
 */
import { starvationNote } from "../demo/index.ts";
import type { FaultKind } from "../emulator/mocks/index.ts";
import { faultKinds } from "../emulator/mocks/index.ts";
import type { AttemptTally } from "./attempt-tally.ts";
import type { CampaignFaultPlan } from "./campaign-fault-plan.ts";
import type { CampaignTarget } from "./chaos-config.ts";
import type { DrainTotals } from "./collectors.ts";
import {
  type Check,
  checkAvailability,
  checkDeadlines,
  checkMemoryFlat,
  checkNoLeaks,
  checkRecordedOnce,
  checkRotations,
  checkStreamedLikePlain,
  checkUnhandledRejections,
  type RotationOutcome,
  streamedAvailabilityTolerance,
} from "./invariants.ts";
import type { LeakScanner, SourceCoverage } from "./leak-scanner.ts";
import type { MachineFigures } from "./machine.ts";
import {
  type MemorySample,
  type MemoryTolerance,
  type MemoryTrend,
  memoryTrends,
} from "./memory.ts";
import type { CampaignSettings } from "./options.ts";
import {
  type AvailabilityFigures,
  availabilityFigures,
  type CallFigures,
  callFigures,
  type EventSummary,
  type StepFigures,
  stepFigures,
} from "./summary.ts";

/** What the traffic left behind. */
export interface TrafficRecord {
  readonly events: EventSummary[];
  /** Ids of every event recorded, duplicates included. */
  readonly eventIds: string[];
  readonly outcomes: { id: string; wallMs: number; deadlineMs: number }[];
  transitions: number;
}

/** Everything `concludeCampaign` needs. */
export interface Conclusion {
  readonly settings: CampaignSettings;
  readonly target: CampaignTarget;
  readonly plan: CampaignFaultPlan;
  readonly tally: AttemptTally;
  readonly traffic: TrafficRecord;
  readonly scanner: LeakScanner;
  readonly samples: readonly MemorySample[];
  /** True when each sample followed a full garbage collection. */
  readonly memoryCollected: boolean;
  readonly durationMs: number;
  readonly unhandled: number;
  readonly rotations: Omit<RotationOutcome, "callsRefusedForKey"> & {
    readonly errors: readonly string[];
  };
  readonly drained: DrainTotals;
  readonly machine: MachineFigures;
}

export interface CampaignResult {
  readonly ok: boolean;
  readonly settings: CampaignSettings;
  readonly gateway: string;
  readonly route: string;
  readonly durationMs: number;
  readonly callsPerSecond: number;
  readonly calls: CallFigures;
  readonly availability: AvailabilityFigures;
  readonly steps: readonly StepFigures[];
  /** Fault kinds in the plan, and those injected at least once. */
  readonly kinds: { readonly planned: number; readonly injected: readonly FaultKind[] };
  /** Faults injected per kind, over the route's providers. */
  readonly injectedByKind: Readonly<Partial<Record<FaultKind, number>>>;
  readonly rotations: RotationOutcome & { readonly errors: readonly string[] };
  readonly breakerTransitions: number;
  /** Wall time per call, in ms. */
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly memory: { heap: MemoryTrend; rss: MemoryTrend; samples: number } | undefined;
  /** True when memory was sampled after full garbage collections (tight tolerance). */
  readonly memoryCollected: boolean;
  readonly scanned: Readonly<Record<string, SourceCoverage>>;
  readonly drained: DrainTotals;
  /** Cores, the healthy-call baseline, how far the time budgets were stretched, event-loop lag. */
  readonly machine: MachineFigures;
  readonly checks: readonly Check[];
}

/**
 * Samples after a full collection measure what is retained: the defaults (heap +10 % or 8 MiB)
 * hold. Without one, a sample may land anywhere in the collector's cycle, so the heap may look
 * 30 % (or 32 MiB) fuller without a leak.
 */
export function memoryTolerance(collected: boolean): MemoryTolerance {
  return collected ? {} : { relative: 0.3, heapBytes: 32 * 1024 * 1024 };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/** Builds the figures and runs every check. */
export function concludeCampaign(conclusion: Conclusion): CampaignResult {
  const { settings, target, plan, tally, traffic, scanner } = conclusion;
  const firstEvents = new Map<string, EventSummary>();
  for (const event of traffic.events)
    if (!firstEvents.has(event.id)) firstEvents.set(event.id, event);
  const calls = callFigures([...firstEvents.values()]);
  const steps = stepFigures(target.route.steps, plan.providers, tally);
  const availability = availabilityFigures(calls, steps);
  const timings = traffic.outcomes.map((outcome) => ({
    id: outcome.id,
    deadlineMs: outcome.deadlineMs,
    latencyMs: Math.max(outcome.wallMs, firstEvents.get(outcome.id)?.latencyMs ?? 0),
  }));
  const walls = traffic.outcomes.map((outcome) => outcome.wallMs).sort((a, b) => a - b);
  const injectedByKind: Partial<Record<FaultKind, number>> = {};
  for (const provider of tally.providers()) {
    for (const kind of faultKinds) {
      const count = provider.kinds[kind];
      if (count !== undefined) injectedByKind[kind] = (injectedByKind[kind] ?? 0) + count;
    }
  }
  const { machine } = conclusion;
  const rotations = {
    ...conclusion.rotations,
    callsRefusedForKey: [...firstEvents.values()].filter(
      (event) => event.status === 401 || event.status === 403,
    ).length,
  };
  const checks = namingStarvation(
    [
      checkRecordedOnce(
        traffic.outcomes.map((outcome) => outcome.id),
        traffic.eventIds,
      ),
      // A deadline timer fires no sooner than the event loop gets to it: the longest stall the
      // loop had during the run is allowed on top of the tolerance.
      checkDeadlines(timings, settings.deadlineToleranceMs + Math.ceil(machine.lag.maxMs)),
      checkUnhandledRejections(conclusion.unhandled),
      checkNoLeaks(scanner),
      checkMemoryFlat(
        conclusion.samples,
        memoryTolerance(conclusion.memoryCollected),
        conclusion.memoryCollected,
      ),
      checkRotations(rotations),
      checkAvailability(
        availability.measured,
        availability.expected,
        settings.availabilityTolerance,
      ),
      checkStreamedLikePlain(
        { answered: calls.plain - calls.failedPlain, calls: calls.plain },
        { answered: calls.stream - calls.failedStream, calls: calls.stream },
        streamedAvailabilityTolerance,
      ),
    ],
    machine,
  );
  return {
    ok: checks.every((check) => check.ok),
    settings,
    gateway: target.gateway.id,
    route: settings.route,
    durationMs: conclusion.durationMs,
    callsPerSecond: calls.total / Math.max(conclusion.durationMs / 1000, 0.001),
    calls,
    availability,
    steps,
    kinds: {
      planned: new Set(plan.schedule.rules.map((rule) => rule.kind)).size,
      injected: faultKinds.filter((kind) => tally.kindsInjected().has(kind)),
    },
    injectedByKind,
    rotations,
    breakerTransitions: traffic.transitions,
    latency: { p50: quantile(walls, 0.5), p99: quantile(walls, 0.99), max: walls.at(-1) ?? 0 },
    memory: memoryTrends(conclusion.samples, memoryTolerance(conclusion.memoryCollected)),
    memoryCollected: conclusion.memoryCollected,
    scanned: Object.fromEntries(scanner.coverage()),
    drained: conclusion.drained,
    machine,
    checks,
  };
}

/** Failed checks say so when the machine was starved for CPU: the likely cause, not a bug. */
export function namingStarvation(checks: readonly Check[], machine: MachineFigures): Check[] {
  const note = starvationNote(machine.starvation);
  if (note === undefined) return [...checks];
  return checks.map((check) =>
    check.ok ? check : { ...check, detail: `${check.detail} · ${note}` },
  );
}
