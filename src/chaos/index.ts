/**
 * @module
 * Fault campaigns: thousands of calls through client → companion Worker → emulator → mock
 * providers, with seeded random faults of every kind on the route's providers and key rotations
 * during the run. Reports availability against the theoretical 1 − Π p and checks the invariants
 * a user relies on: every call recorded once, no call past its deadline, no unhandled rejection,
 * no key in any output, flat memory, rotations that never fail a call, streamed calls as available
 * as plain ones.
 * @example
 * const result = await runCampaign({ config, quick: true });
 * for (const line of renderReport(result)) console.log(line);
 * process.exitCode = result.ok ? 0 : 1;
 */
export { AttemptTally, type InjectedRates, type ProviderTally } from "./attempt-tally.ts";
export { type CampaignOptions, rotationSchedule, runCampaign } from "./campaign.ts";
export {
  type CampaignFaultPlan,
  type FaultPlanInput,
  type PlannedKind,
  type ProviderPlan,
  planFaults,
  plannedEffects,
  streamOnlyKinds,
  unplannedKinds,
} from "./campaign-fault-plan.ts";
export { type CampaignTarget, chaosTarget } from "./chaos-config.ts";
export { effectOf, type FaultEffect, faultEffects } from "./fault-effects.ts";
export * from "./invariants.ts";
export { type LeakHit, LeakScanner, type Secret } from "./leak-scanner.ts";
export { type MemorySample, type MemoryTrend, memoryTrends, sampleMemory } from "./memory.ts";
export {
  type CampaignInput,
  type CampaignSettings,
  campaignSettings,
  defaultRates,
} from "./options.ts";
export { tapProcessOutput } from "./output-tap.ts";
export { renderReport, theoryExplanation } from "./report.ts";
export type { CampaignResult } from "./result.ts";
export { isAnswered } from "./summary.ts";
export {
  chainAvailability,
  expectedAvailability,
  type StepChances,
  theoreticalAvailability,
} from "./theory.ts";
