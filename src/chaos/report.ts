/**
 * @module
 * The campaign report as text: faults per step (planned and injected), calls, availability
 * against the theory with how retries and fallback relate to it, and each check as ✔ or ✖.
 */
import pc from "picocolors";
import { starvationNote } from "../demo/index.ts";
import type { CampaignResult } from "./result.ts";

const percent = (value: number | null, digits = 2) =>
  value === null ? "n/a" : `${(value * 100).toFixed(digits)} %`;
const ms = (value: number) => `${Math.round(value).toLocaleString("en-US")} ms`;
const mark = (ok: boolean) => (ok ? pc.green("✔") : pc.red("✖"));

/** How retries and fallback relate to the theoretical figure; printed under it. */
export const theoryExplanation = [
  "The theory counts one attempt per step: a call fails only when every step fails, 1 − Π p.",
  "Retries lift the measure above it: the gateway retries a step before falling back (a step",
  "then fails only when all its attempts do, about pᵏ), and the client re-sends the chain when",
  "every step failed. A streamed answer that breaks after its first byte is past the gateway's",
  "help but not the client's: it goes on with the steps after the one that broke (a restart",
  "event tells the caller to drop the text shown), so a break counts as a failure of its step:",
  "the expected figure is 1 − Π (fᵢ + bᵢ) for streamed calls, blended with plain ones; it is what the check",
  "compares with. A 400 refusal is an answer, not an outage.",
];

function stepLines(result: CampaignResult): string[] {
  const header = `  ${"step".padEnd(44)} ${"planned".padStart(8)} ${"injected".padStart(9)} ${"fails".padStart(8)} ${"breaks".padStart(8)} ${"attempts".padStart(16)}`;
  const rows = result.steps.map((step) => {
    const name = `${step.index} ${step.provider}/${step.model}`.padEnd(44);
    const source = step.usedPlan ? pc.dim(" (planned: few attempts)") : "";
    return `  ${name} ${percent(step.plannedRate, 1).padStart(8)} ${percent(step.injected.faulted, 1).padStart(9)} ${percent(step.injected.fails, 1).padStart(8)} ${percent(step.injected.streamBreaks, 1).padStart(8)} ${`${step.attempts} (${step.streamAttempts} str.)`.padStart(16)}${source}`;
  });
  return [pc.dim(header), ...rows];
}

/** `machine 2 cores · healthy calls p90 14 ms · event-loop lag p99 12 ms · max 40 ms (…)`. */
function machineLine(result: CampaignResult): string {
  const { machine } = result;
  const baseline =
    machine.baseline === undefined
      ? "not sized to it"
      : `healthy calls p90 ${ms(machine.baseline.p90Ms)}${machine.scale > 1 ? `, time budgets ×${machine.scale.toFixed(1)}` : ""}`;
  return `machine ${machine.cores} cores · ${baseline} · ${machine.starvation.summary}`;
}

/** The report, one line per array entry. */
export function renderReport(result: CampaignResult): string[] {
  const { calls, availability, settings } = result;
  const kinds = Object.entries(result.injectedByKind)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(" · ");
  const byStep = Object.entries(result.calls.byStep)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([step, count]) => `${step === "none" ? "no step" : `step ${step}`} ${count}`)
    .join(" · ");
  const errors = Object.entries(result.calls.errorCodes)
    .sort(([, a], [, b]) => b - a)
    .map(([code, count]) => `${code} ${count}`)
    .join(" · ");
  const failureRates = result.steps.map((step) => step.injected.fails.toFixed(3)).join(" · ");
  return [
    pc.bold(
      `Fault campaign · ${result.gateway}/${result.route} · ${calls.total} calls (${calls.stream} streamed), ${settings.concurrency} at a time, seed ${settings.seed}`,
    ),
    `${(result.durationMs / 1000).toFixed(1)} s · ${result.callsPerSecond.toFixed(0)} calls/s · step timeouts capped at ${settings.timeoutCapMs} ms · deadline ${settings.deadlineMs} ms (${percent(settings.tightDeadline.share, 0)} of calls: ${settings.tightDeadline.ms} ms)`,
    machineLine(result),
    "",
    pc.bold("Faults per attempt") +
      pc.dim(
        " (fails: before answering, the chain moves on · breaks: a stream after its first byte, the client moves on)",
      ),
    ...stepLines(result),
    `  ${result.kinds.injected.length} of ${result.kinds.planned} fault kinds injected: ${kinds}`,
    "",
    pc.bold("Calls"),
    `  ok ${calls.ok} · refused with a 400 ${calls.refused} · failed ${calls.failed} (plain ${calls.failedPlain}, streamed ${calls.failedStream})`,
    `  served by ${byStep} · ${result.breakerTransitions} circuit transitions`,
    `  errors: ${errors === "" ? "none" : errors}`,
    `  latency p50 ${ms(result.latency.p50)} · p99 ${ms(result.latency.p99)} · max ${ms(result.latency.max)}`,
    "",
    pc.bold("Availability"),
    `  measured     ${pc.bold(percent(availability.measured))}  (plain ${percent(availability.measuredPlain)}, streamed ${percent(availability.measuredStream)})`,
    `  theoretical  ${percent(availability.theoretical)}  = 1 − Π p, p = ${failureRates} (injected failure rate per attempt, step by step)`,
    `  expected     ${percent(availability.expected)}  with stream breaks as failures (streamed calls alone: ${percent(availability.theoreticalStream)})`,
    ...theoryExplanation.map((line) => pc.dim(`  ${line}`)),
    "",
    pc.bold("Checks"),
    ...result.checks.map((check) => `  ${mark(check.ok)} ${check.name} · ${check.detail}`),
    ...result.rotations.errors.map((error) => pc.red(`    rotation failed: ${error}`)),
    "",
    result.ok
      ? `${pc.green("✔")} every invariant held`
      : `${pc.red("✖")} ${result.checks.filter((check) => !check.ok).length} invariant(s) failed${result.machine.starvation.starved ? `: ${starvationNote(result.machine.starvation)}` : ""}`,
  ];
}
