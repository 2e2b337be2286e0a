/**
 * @module
 * The pieces a campaign sets up on the running system: the secrets the leak scanner looks for,
 * the fault plan for the route's providers, the recorder that keeps one summary per event, and
 * the thin client that calls through the companion Worker with the campaign's low timeouts.
 */

import { createCircuitBreaker } from "../client/breaker.ts";
import {
  type CallEvent,
  createGatewayClient,
  type GatewayClient,
  type Recorder,
} from "../client/index.ts";
import type { JsonLinesRecorder } from "../client/node/index.ts";
import { capTimeouts, type LocalSystem } from "../demo/index.ts";
import { type CampaignFaultPlan, planFaults } from "./campaign-fault-plan.ts";
import type { CampaignTarget } from "./chaos-config.ts";
import type { LeakScanner } from "./leak-scanner.ts";
import { type CampaignSettings, rateOfStep } from "./options.ts";
import type { TrafficRecord } from "./result.ts";

/** Every secret of the system: each provider's first key, the app, admin and gateway tokens. */
export function registerSecrets(
  scanner: LeakScanner,
  system: LocalSystem,
  providers: readonly string[],
): void {
  for (const provider of providers) {
    scanner.addSecret({ label: `${provider} key #1`, value: system.currentKey(provider) });
  }
  scanner.addSecret({ label: "the app token", value: system.appToken });
  scanner.addSecret({ label: "the Worker admin token", value: system.adminToken });
  scanner.addSecret({ label: "the gateway token", value: system.emulator.gatewayToken });
}

/** The route's providers, each once, in route order. */
export function routeProviders(target: CampaignTarget): string[] {
  return [...new Set(target.route.steps.map((step) => step.provider))];
}

/** The fault plan: each provider gets the rate of the first step it serves. */
export function campaignFaults(
  target: CampaignTarget,
  settings: CampaignSettings,
  startedAt: number,
): CampaignFaultPlan {
  const steps = target.route.steps;
  return planFaults({
    providers: routeProviders(target).map((provider) => ({
      provider,
      rate: rateOfStep(
        settings,
        steps.findIndex((step) => step.provider === provider),
      ),
    })),
    seed: settings.seed,
    fromMs: startedAt,
    untilMs: startedAt + 3_600_000,
    // Late but under the step timeout; stalled past the stream idle timeout.
    slowMs: Math.floor(settings.timeoutCapMs * 0.4),
    stallMs: settings.streamIdleTimeoutMs * 2,
  });
}

/** Scans each event, keeps its summary (and writes it to the events file, when there is one). */
export function campaignRecorder(options: {
  readonly traffic: TrafficRecord;
  readonly scanner: LeakScanner;
  readonly file: JsonLinesRecorder | undefined;
  readonly note: (line: string) => void;
}): Recorder {
  const { traffic, scanner, file, note } = options;
  return {
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
}

/** The thin client, calling the campaign's route through the companion Worker. */
export function campaignClient(
  target: CampaignTarget,
  settings: CampaignSettings,
  system: LocalSystem,
  recorder: Recorder,
): GatewayClient {
  return createGatewayClient({
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
    breaker: createCircuitBreaker({
      failureThreshold: 3,
      cooldownMs: 1_500,
      windowMs: 10_000,
      minimumCalls: 10,
    }),
  });
}
