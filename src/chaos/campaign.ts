/**
 * @module
 * `runCampaign`: a fault campaign through the whole system. Starts the emulator, the mock
 * providers and the companion Worker; puts the seeded fault plan on the route's providers; sends
 * the calls through the thin client via the Worker, rotating keys through the Worker's admin API
 * as it goes; then checks the invariants and computes availability against the theory. Everything
 * it started is stopped, even on failure.
 */
import { jsonLinesRecorder } from "../client/node/index.ts";
import type { StepwiseConfig } from "../config/index.ts";
import {
  type EventLoopLag,
  type LocalSystem,
  startLocalSystem,
  starvationVerdict,
  watchEventLoop,
} from "../demo/index.ts";
import { AttemptTally } from "./attempt-tally.ts";
import {
  campaignClient,
  campaignFaults,
  campaignRecorder,
  registerSecrets,
  routeProviders,
} from "./campaign-setup.ts";
import { type CampaignTarget, chaosTarget } from "./chaos-config.ts";
import { drainSystem } from "./collectors.ts";
import { LeakScanner } from "./leak-scanner.ts";
import {
  type MachineBaseline,
  machineCores,
  measureBaseline,
  scaleFor,
  scaleSettings,
} from "./machine.ts";
import { fullCollection, sampleMemory } from "./memory.ts";
import { type CampaignInput, type CampaignSettings, campaignSettings } from "./options.ts";
import { tapProcessOutput } from "./output-tap.ts";
import { createProgress, type ProgressCounts } from "./progress.ts";
import {
  type CampaignResult,
  type Conclusion,
  concludeCampaign,
  type TrafficRecord,
} from "./result.ts";
import { createRotator } from "./rotations.ts";
import { runCalls } from "./traffic.ts";

export interface CampaignOptions extends CampaignInput {
  readonly config: StepwiseConfig;
  /** Start-up and note lines; stderr by default. Every line is scanned for keys. */
  readonly log?: (line: string) => void;
  /** Where the progress bar or lines go; stderr by default. */
  readonly progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Also write every event to this JSON-lines file (for `stepwise report`). */
  readonly eventsFile?: string;
  /**
   * Stops the campaign: no new call is sent, everything started is stopped, and `runCampaign`
   * rejects with the signal's reason.
   */
  readonly signal?: AbortSignal;
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
      collected = await runTraffic(settings, target, system, scanner, log, options);
    } finally {
      await system.close();
    }
    options.signal?.throwIfAborted();
    // Rejections surface after the microtasks of the tick that dropped them.
    await new Promise((resolve) => setImmediate(resolve));
    return concludeCampaign({ ...collected, unhandled });
  } finally {
    untap();
    process.off("unhandledRejection", onUnhandled);
  }
}

/**
 * Healthy calls through the whole chain, then the settings stretched to the machine's pace. The
 * calls' attempts are cleared from the mocks' log, so they count in no figure.
 */
async function sizeToMachine(
  initial: CampaignSettings,
  target: CampaignTarget,
  system: LocalSystem,
  log: (line: string) => void,
): Promise<{ settings: CampaignSettings; baseline: MachineBaseline; scale: number }> {
  const baseline = await measureBaseline({
    client: campaignClient(target, initial, system, { record: () => undefined }),
    route: initial.route,
    calls: initial.concurrency * 3,
    concurrency: initial.concurrency,
  });
  system.emulator.mocks?.clearAttempts();
  const scale = scaleFor(initial, baseline);
  const settings = scaleSettings(initial, scale);
  log(
    `· sized to this machine (${machineCores()} cores): healthy calls take p90 ${baseline.p90Ms} ms, so step timeouts are ${settings.timeoutCapMs} ms and the deadline ${settings.deadlineMs} ms${scale > 1 ? ` (×${scale.toFixed(1)})` : ""}`,
  );
  return { settings, baseline, scale };
}

/** Everything between start-up and shutdown: faults, rotations, calls, and what they left. */
async function runTraffic(
  initialSettings: CampaignSettings,
  target: CampaignTarget,
  system: LocalSystem,
  scanner: LeakScanner,
  log: (line: string) => void,
  options: CampaignOptions,
): Promise<Omit<Conclusion, "unhandled">> {
  registerSecrets(scanner, system, target.config.keys.providers);
  const sized = initialSettings.sizeToMachine
    ? await sizeToMachine(initialSettings, target, system, log)
    : { settings: initialSettings, baseline: undefined, scale: 1 };
  const { settings } = sized;
  const providers = routeProviders(target);
  const plan = campaignFaults(target, settings, Date.now());
  system.emulator.mocks?.setFaults(plan.schedule);
  log(
    `· ${settings.calls} calls, ${settings.concurrency} at a time, seed ${settings.seed}: ${plan.schedule.rules.length} fault rules on ${providers.join(", ")}`,
  );
  const tally = new AttemptTally();
  const drain = drainSystem(system, target.gateway.id, tally, scanner);
  const drainTimer = setInterval(() => drain.drain(), 250);
  drainTimer.unref();
  const counts: ProgressCounts = { done: 0, ok: 0, failed: 0, streamed: 0, rotations: 0 };
  const progress = createProgress(settings.calls, options.progressStream);
  const note = (line: string) => {
    scanner.scan("campaign output", line);
    progress.note(line);
  };
  const rotator = createRotator({
    workerUrl: system.worker.url,
    adminToken: system.adminToken,
    mocks: system.emulator.mocks!,
    currentKeys: new Map(providers.map((provider) => [provider, system.currentKey(provider)])),
    // Longer than any call that may still carry the old key.
    drainMs: settings.deadlineMs + 500,
    onKey: (secret) => scanner.addSecret(secret),
    onRotation: (line) => {
      counts.rotations += 1;
      note(line);
    },
  });
  const schedule = rotationSchedule(providers, settings.rotationsPerProvider, settings.calls);
  const traffic: TrafficRecord = { events: [], eventIds: [], outcomes: [], transitions: 0 };
  const file =
    options.eventsFile === undefined ? undefined : jsonLinesRecorder({ path: options.eventsFile });
  const recorder = campaignRecorder({ traffic, scanner, file, note });
  const client = campaignClient(target, settings, system, recorder);
  const collect = fullCollection();
  const sampler = sampleMemory({
    intervalMs: settings.sampleIntervalMs,
    calls: () => counts.done,
    ...(collect === undefined ? {} : { collect }),
  });
  const trafficStart = performance.now();
  const eventLoop = watchEventLoop();
  let lag: EventLoopLag | undefined;
  try {
    await runCalls({
      ...(options.signal ? { signal: options.signal } : {}),
      client,
      route: settings.route,
      calls: settings.calls,
      concurrency: settings.concurrency,
      seed: settings.seed,
      streamShare: settings.streamShare,
      deadlineMs: settings.deadlineMs,
      tightDeadline: settings.tightDeadline,
      idPrefix: `chaos-${settings.seed}-`,
      actions: schedule.map(({ at, provider }) => ({ at, run: () => rotator.rotate(provider) })),
      onOutcome(outcome) {
        scanner.scan("answers and errors", outcome.text);
        const { id, wallMs, deadlineMs } = outcome;
        traffic.outcomes.push({ id, wallMs, deadlineMs });
        counts.done += 1;
        if (outcome.ok) counts.ok += 1;
        else counts.failed += 1;
        if (outcome.stream) counts.streamed += 1;
        progress.update(counts);
      },
    });
  } finally {
    lag = eventLoop.stop();
    sampler.stop();
    rotator.finish();
    clearInterval(drainTimer);
  }
  const durationMs = performance.now() - trafficStart;
  progress.stop(counts);
  system.emulator.mocks?.setFaults({ rules: [] });
  drain.drain();
  await file?.flush();
  return {
    settings,
    target,
    plan,
    tally,
    traffic,
    scanner,
    samples: sampler.samples,
    memoryCollected: collect !== undefined,
    durationMs,
    rotations: { planned: schedule.length, ...rotator.totals(), refusedKeys: tally.refusedKeys },
    drained: drain.totals,
    machine: {
      cores: machineCores(),
      baseline: sized.baseline,
      scale: sized.scale,
      lag,
      starvation: starvationVerdict(lag, settings.timeoutCapMs),
    },
  };
}
