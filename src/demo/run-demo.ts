/**
 * @module
 * `runDemo`: the main job. Starts the local system (emulator, mock providers, companion Worker),
 * sends a scenario's traffic through the thin client via the Worker, then builds the step-rate
 * report from the events the client recorded and checks that every call was recorded once.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import pc from "picocolors";
import {
  buildReport,
  eventsFileSource,
  type Report,
  renderGroupsTable,
  renderHtml,
  renderTable,
} from "../analytics/index.ts";
import { createCircuitBreaker } from "../client/breaker.ts";
import {
  type CallEvent,
  complexityScorer,
  createGatewayClient,
  type Recorder,
} from "../client/index.ts";
import { jsonLinesRecorder } from "../client/node/index.ts";
import type { RouteConfig, StepConfig, StepwiseConfig } from "../config/index.ts";
import { StepwiseError } from "../errors/index.ts";
import { type StarvationVerdict, starvationVerdict, watchEventLoop } from "./event-loop-lag.ts";
import { type FailureCounts, rateLimitWarning } from "./explain.ts";
import { startLocalSystem } from "./local-system.ts";
import { PolicyView } from "./policy-view.ts";
import { createProgress } from "./progress.ts";
import { type DemoScenario, phaseSizes } from "./scenario.ts";
import { runTraffic } from "./traffic.ts";

export interface DemoOptions {
  readonly config: StepwiseConfig;
  readonly scenario: DemoScenario;
  /** Calls to send, spread over the scenario's phases by their shares. */
  readonly calls: number;
  readonly concurrency: number;
  readonly ratePerSecond: number;
  /** Where the events file and the HTML report go. */
  readonly outDir: string;
  /** Step timeouts are capped at this many ms so a hanging provider costs seconds, not minutes. */
  readonly timeoutCapMs: number;
  /** How long an open circuit waits before a probe; default 1 500 ms. */
  readonly breakerCooldownMs?: number;
  readonly log?: (line: string) => void;
  readonly progressStream?: NodeJS.WriteStream;
}

export interface DemoResult {
  readonly report: Report;
  readonly eventsFile: string;
  readonly htmlFile: string;
  readonly calls: number;
  readonly events: number;
  readonly breakerTransitions: number;
  /** Failed calls by error code (`rate_limited`, `deadline_exceeded`, …). */
  readonly failures: FailureCounts;
  /** How starved for CPU the run was, next to its step timeouts. */
  readonly starvation: StarvationVerdict;
}

/** Runs the demo end to end and shuts down everything it started, even on failure. */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const log = options.log ?? ((line: string) => console.log(line));
  const { gateway, route, policyRouteName, policyRoute } = scenarioRoutes(
    options.config,
    options.scenario,
  );
  // Relative when outDir is: the paths are printed for the user to open.
  const eventsFile = path.join(options.outDir, "events.jsonl");
  const htmlFile = path.join(options.outDir, "report.html");
  await mkdir(options.outDir, { recursive: true });
  await writeFile(eventsFile, "");

  const system = await startLocalSystem({
    config: options.config,
    onStep: (message) => log(pc.dim(`· ${message}`)),
  });
  try {
    log(`${pc.green("✔")} gateway ${gateway.id} at ${system.emulator.gatewayUrl(gateway.id)}`);
    log(
      `${pc.green("✔")} companion Worker at ${system.worker.url}; the app holds only an app token`,
    );
    if (policyRouteName !== options.scenario.route) {
      log(
        `route ${pc.cyan(options.scenario.route)}: ${route.steps.map((step) => `${step.provider}/${step.model}`).join(" → ")}`,
      );
    }
    const policy =
      policyRoute === undefined || policyRouteName === undefined
        ? undefined
        : new PolicyView(policyRouteName, policyRoute);
    for (const line of policy?.describe() ?? []) log(line);
    log(
      pc.dim(
        `step timeouts capped at ${options.timeoutCapMs} ms for the demo; Pulumi.dev.yaml is unchanged`,
      ),
    );
    const warning = rateLimitWarning(gateway, options.calls, options.ratePerSecond);
    if (warning !== undefined) log(pc.yellow(`⚠ ${warning}`));

    const file = jsonLinesRecorder({ path: eventsFile });
    let events = 0;
    let breakerTransitions = 0;
    const failures = new Map<string, number>();
    const progress = createProgress(
      options.calls,
      options.progressStream,
      () => policy?.shares() ?? "",
    );
    const recorder: Recorder = {
      record: (event: CallEvent) => {
        events += 1;
        if (!event.ok) {
          const code = event.errorCode ?? `status_${event.status}`;
          failures.set(code, (failures.get(code) ?? 0) + 1);
        }
        const note = policy?.observe(event);
        if (note !== undefined) progress.note(note);
        return file.record(event);
      },
      breaker: (transition) => {
        breakerTransitions += 1;
        progress.note(
          pc.yellow(
            `circuit ${transition.provider}: ${transition.from} → ${transition.to} (${transition.reason})`,
          ),
        );
      },
    };
    const breakerCooldownMs = options.breakerCooldownMs ?? 1_500;
    const client = createGatewayClient({
      accountId: options.config.accountId,
      gatewayId: gateway.id,
      baseUrl: system.worker.url,
      gatewayToken: system.appToken,
      routes: {
        [options.scenario.route]: capTimeouts(route, options.timeoutCapMs),
        ...(policyRouteName === undefined || policyRoute === undefined
          ? {}
          : { [policyRouteName]: capTimeouts(policyRoute, options.timeoutCapMs) }),
      },
      prices: options.config.models,
      // The default complexity scorer tiers each call's question (a heuristic: docs/routing-policy.md).
      scorer: complexityScorer,
      recorder,
      deadlineMs: 15_000,
      breaker: createCircuitBreaker({
        failureThreshold: 3,
        cooldownMs: breakerCooldownMs,
        // The demo plays its incidents in seconds: a cooldown that doubled through the outage and
        // the revoked key up to the default cap (15×) would outlast the recovery phase, and the
        // primary would not be seen serving again.
        maxCooldownMs: 2 * breakerCooldownMs,
        windowMs: 10_000,
        minimumCalls: 10,
      }),
    });
    const eventLoop = watchEventLoop();
    const tally = await runTraffic({
      client,
      route: options.scenario.route,
      phases: options.scenario.phases,
      sizes: phaseSizes(options.scenario.phases, options.calls),
      concurrency: options.concurrency,
      ratePerSecond: options.ratePerSecond,
      ...(policyRouteName === undefined ? {} : { policyRoute: policyRouteName }),
      hooks: {
        setFaults: (rules) => system.emulator.mocks?.setFaults({ rules }),
        runAction: async (action) => {
          if (action.kind === "revoke-key") {
            system.revoke(action.provider);
            return pc.red(`${action.provider} revoked the key the Worker injects`);
          }
          const rotated = await system.rotate(action.provider, "demo operator rotation");
          const line = `operator rotated ${action.provider} to version ${rotated.version} (${rotated.fingerprint}) through the Worker`;
          // One rotation, both places: the Worker's KV (proxied calls) and each BYOK gateway's
          // stored key (its dynamic/<route> calls).
          const stored = system.storedKeyFingerprints(action.provider);
          if (stored.length === 0) return pc.green(line);
          const same = stored.every((entry) => entry.fingerprint === rotated.fingerprint);
          const secrets = stored.map((entry) => entry.secret).join(", ");
          return same
            ? pc.green(
                `${line}; one rotation changed both: proxied calls and dynamic routes (${secrets}) now use ${rotated.fingerprint}`,
              )
            : pc.yellow(`${line}; the gateway's stored key (${secrets}) is still pending`);
        },
        onPhaseStart: (phase) => progress.phase(phase.name, phase.description),
        onCall: (current) => progress.update(current),
        onNote: (line) => progress.note(line),
      },
    });
    const lag = eventLoop.stop();
    progress.stop(tally);
    await file.flush();

    const report = await buildReport(eventsFileSource(eventsFile));
    // The run lasts seconds, so the HTML chart gets one-second buckets to show each phase.
    const timeline = await buildReport(eventsFileSource(eventsFile), { bucketMs: 1_000 });
    await writeFile(htmlFile, renderHtml(timeline));
    log("");
    log(renderTable(report));
    if (policy && policyRouteName !== undefined) {
      // The policy route's calls by plan and tier: what each tier cost, how often it fell back,
      // and how many calls a spent budget sent elsewhere.
      const byTier = await buildReport(eventsFileSource(eventsFile), {
        dimensions: ["metadata.plan", "metadata.tier"],
        routes: [policyRouteName],
      });
      log(pc.dim(`route ${policyRouteName} only:`));
      log(renderGroupsTable(byTier));
      log(policy.shares());
    }
    return {
      report,
      eventsFile,
      htmlFile,
      calls: tally.calls,
      events,
      breakerTransitions,
      failures,
      starvation: starvationVerdict(lag, options.timeoutCapMs),
    };
  } finally {
    await system.close();
  }
}

/**
 * The scenario's gateway, route and policy route, from the config.
 * @throws {StepwiseError} `demo_route_missing` for a route the gateway lacks, or a policy route without a policy.
 */
function scenarioRoutes(config: StepwiseConfig, scenario: DemoScenario) {
  const gateway = scenario.gateway
    ? config.gateways.find((candidate) => candidate.id === scenario.gateway)
    : config.gateways[0];
  const route = gateway?.routes[scenario.route];
  if (!gateway || !route) {
    throw new StepwiseError({
      code: "demo_route_missing",
      message: `the scenario's route "${scenario.route}" is not in gateway "${scenario.gateway ?? config.gateways[0]?.id}": pick a route of the config with the scenario's route field`,
    });
  }
  const policyRouteName = scenario.policyRoute;
  const policyRoute = policyRouteName === undefined ? undefined : gateway.routes[policyRouteName];
  if (policyRouteName !== undefined && policyRoute?.policy === undefined) {
    throw new StepwiseError({
      code: "demo_route_missing",
      message: `the scenario's policyRoute "${policyRouteName}" is ${policyRoute === undefined ? "not in" : "a route without a policy in"} gateway "${gateway.id}": name a route with a policy, or leave policyRoute out`,
    });
  }
  return { gateway, route, policyRouteName, policyRoute };
}

/** A copy of the route whose step timeouts (in every chain) are at most `capMs`. */
export function capTimeouts(route: RouteConfig, capMs: number): RouteConfig {
  const cap = (steps: readonly StepConfig[]) =>
    steps.map((step) => ({ ...step, timeoutMs: Math.min(step.timeoutMs ?? capMs, capMs) }));
  const capped: RouteConfig = { ...route, steps: cap(route.steps) };
  if (route.chains !== undefined) {
    capped.chains = Object.fromEntries(
      Object.entries(route.chains).map(([name, steps]) => [name, cap(steps)]),
    );
  }
  return capped;
}
