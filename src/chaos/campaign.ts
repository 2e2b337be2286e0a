/**
 * @module
 * `runCampaign`: a fault campaign through the whole system. Starts the emulator, the mock
 * providers and the companion Worker; puts the seeded fault plan on the route's providers; sends
 * the calls through the thin client via the Worker, rotating keys through the Worker's admin API
 * as it goes; then checks the invariants and computes availability against the theory. Everything
 * it started is stopped, even on failure.
 */
import { type CallEvent, createGatewayClient, type Recorder } from "../client/index.ts";
import { type JsonLinesRecorder, jsonLinesRecorder } from "../client/node/index.ts";
import type { StepwiseConfig } from "../config/index.ts";
import { capTimeouts, startLocalSystem } from "../demo/index.ts";
import { AttemptTally } from "./attempt-tally.ts";
import { chaosTarget } from "./chaos-config.ts";
import { drainSystem } from "./collectors.ts";
import { planFaults } from "./fault-plan.ts";
import { LeakScanner } from "./leak-scanner.ts";
import { fullCollection, sampleMemory } from "./memory.ts";
import { type CampaignInput, campaignSettings, rateOfStep } from "./options.ts";
import { tapProcessOutput } from "./output-tap.ts";
import { type CampaignProgress, createProgress, type ProgressCounts } from "./progress.ts";
import {
  type CampaignResult,
  type Conclusion,
  concludeCampaign,
  type TrafficRecord,
} from "./result.ts";
import { createRotator, type Rotator } from "./rotations.ts";
import { runCalls, type TrafficAction } from "./traffic.ts";

export interface CampaignOptions extends CampaignInput {
  readonly config: StepwiseConfig;
  /** Start-up and note lines; stderr by default. Every line is scanned for keys. */
  readonly log?: (line: string) => void;
  /** Where the progress bar or lines go; stderr by default. */
  readonly progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Also write every event to this JSON-lines file (for `stepwise report`). */
  readonly eventsFile?: string;
}

/** When each rotation happens: spread evenly over the calls, providers taking turns. */
export function rotationSchedule(
  providers: readonly string[],
  perProvider: number,
  calls: number,
): { at: number; provider: string }[] {
  const total = providers.length * perProvider;
  return Array.from({ length: total }, (_, index) => ({
    at: Math.floor((calls * (index + 1)) / (total + 1)),
    provider: providers[index % providers.length]!,
  }));
}

/** Runs one campaign; see the module description. */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const settings = campaignSettings(options);
  const target = chaosTarget(options.config, settings.gateway, settings.route);
  const scanner = new LeakScanner();
  const write = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (line: string) => {
    scanner.scan("campaign output", line);
    write(line);
  };
  let unhandled = 0;
  const onUnhandled = () => {
    unhandled += 1;
  };
  process.on("unhandledRejection", onUnhandled);
  const untap = tapProcessOutput((stream, text) => scanner.scan(stream, text));
  try {
    const system = await startLocalSystem({
      config: target.config,
      onStep: (message) => log(`· ${message}`),
    });
    let collected: Omit<Conclusion, "unhandled">;
    try {
      for (const provider of target.config.keys.providers) {
        scanner.addSecret({ label: `${provider} key #1`, value: system.currentKey(provider) });
      }
      scanner.addSecret({ label: "the app token", value: system.appToken });
      scanner.addSecret({ label: "the Worker admin token", value: system.adminToken });
      scanner.addSecret({ label: "the gateway token", value: system.emulator.gatewayToken });

      const steps = target.route.steps;
      const providers = [...new Set(steps.map((step) => step.provider))];
      const started = Date.now();
      const plan = planFaults({
        providers: providers.map((provider) => ({
          provider,
          rate: rateOfStep(
            settings,
            steps.findIndex((step) => step.provider === provider),
          ),
        })),
        seed: settings.seed,
        fromMs: started,
        untilMs: started + 3_600_000,
        slowMs: Math.floor(settings.timeoutCapMs * 0.4),
        stallMs: settings.streamIdleTimeoutMs * 2,
      });
      system.emulator.mocks?.setFaults(plan.schedule);
      log(
        `· ${settings.calls} calls, ${settings.concurrency} at a time, seed ${settings.seed}: ${plan.schedule.rules.length} fault rules on ${providers.join(", ")}`,
      );

      const tally = new AttemptTally();
      const drain = drainSystem(system, target.gateway.id, tally, scanner);
      const drainTimer = setInterval(() => drain.drain(), 250);
      drainTimer.unref();
      const counts: ProgressCounts = { done: 0, ok: 0, failed: 0, streamed: 0, rotations: 0 };
      const progress: CampaignProgress = createProgress(settings.calls, options.progressStream);
      const note = (line: string) => {
        scanner.scan("campaign output", line);
        progress.note(line);
      };
      const rotator: Rotator = createRotator({
        workerUrl: system.worker.url,
        adminToken: system.adminToken,
        mocks: system.emulator.mocks!,
        currentKeys: new Map(providers.map((provider) => [provider, system.currentKey(provider)])),
        drainMs: settings.deadlineMs + 500,
        onKey: (secret) => scanner.addSecret(secret),
        onRotation: (line) => {
          counts.rotations += 1;
          note(line);
        },
      });
      const schedule = rotationSchedule(providers, settings.rotationsPerProvider, settings.calls);
      const actions: TrafficAction[] = schedule.map(({ at, provider }) => ({
        at,
        run: () => rotator.rotate(provider),
      }));

      const traffic: TrafficRecord = { events: [], eventIds: [], outcomes: [], transitions: 0 };
      const file: JsonLinesRecorder | undefined =
        options.eventsFile === undefined
          ? undefined
          : jsonLinesRecorder({ path: options.eventsFile });
      const recorder: Recorder = {
        record(event: CallEvent) {
          scanner.scan("call events", JSON.stringify(event));
          traffic.eventIds.push(event.id);
          const { id, ok, status, step, streamed, latencyMs, errorCode } = event;
          traffic.events.push({ id, ok, status, step, streamed, latencyMs, errorCode });
          return file?.record(event);
        },
        breaker(transition) {
          traffic.transitions += 1;
          note(
            `circuit ${transition.provider}: ${transition.from} → ${transition.to} (${transition.reason})`,
          );
        },
      };
      const client = createGatewayClient({
        accountId: target.config.accountId,
        gatewayId: target.gateway.id,
        baseUrl: system.worker.url,
        gatewayToken: system.appToken,
        routes: {
          [settings.route]: {
            ...capTimeouts(target.route, settings.timeoutCapMs),
            deadlineMs: settings.deadlineMs,
          },
        },
        prices: target.config.models,
        recorder,
        deadlineMs: settings.deadlineMs,
        streamIdleTimeoutMs: settings.streamIdleTimeoutMs,
        breaker: { failureThreshold: 3, cooldownMs: 1_500, windowMs: 10_000, minimumCalls: 10 },
      });

      const collect = fullCollection();
      const sampler = sampleMemory({
        intervalMs: settings.sampleIntervalMs,
        calls: () => counts.done,
        ...(collect === undefined ? {} : { collect }),
      });
      const trafficStart = performance.now();
      await runCalls({
        client,
        route: settings.route,
        calls: settings.calls,
        concurrency: settings.concurrency,
        seed: settings.seed,
        streamShare: settings.streamShare,
        deadlineMs: settings.deadlineMs,
        tightDeadline: settings.tightDeadline,
        idPrefix: `chaos-${settings.seed}-`,
        actions,
        onOutcome(outcome) {
          scanner.scan("answers and errors", outcome.text);
          traffic.outcomes.push({
            id: outcome.id,
            wallMs: outcome.wallMs,
            deadlineMs: outcome.deadlineMs,
          });
          counts.done += 1;
          if (outcome.ok) counts.ok += 1;
          else counts.failed += 1;
          if (outcome.stream) counts.streamed += 1;
          progress.update(counts);
        },
      });
      const durationMs = performance.now() - trafficStart;
      const samples = sampler.stop();
      progress.stop(counts);
      rotator.finish();
      system.emulator.mocks?.setFaults({ rules: [] });
      clearInterval(drainTimer);
      drain.drain();
      await file?.flush();
      collected = {
        settings,
        target,
        plan,
        tally,
        traffic,
        scanner,
        samples,
        memoryCollected: collect !== undefined,
        durationMs,
        rotations: {
          planned: schedule.length,
          ...rotator.totals(),
          refusedKeys: tally.refusedKeys,
        },
        drained: drain.totals,
      };
    } finally {
      await system.close();
    }
    // Rejections surface after the microtasks of the tick that dropped them.
    await new Promise((resolve) => setImmediate(resolve));
    return concludeCampaign({ ...collected, unhandled });
  } finally {
    untap();
    process.off("unhandledRejection", onUnhandled);
  }
}
