/**
 * @module
 * Sends the demo's traffic through the thin client: phase by phase, a bounded number of calls in
 * flight, paced to a target rate, with each phase's faults and operator actions applied at their
 * point. Counts what served every call as it goes, for the live progress line.
 */
import type { ChatResponse, GatewayClient } from "../client/index.ts";
import type { FaultRule } from "../emulator/mocks/index.ts";
import { type DemoCall, demoCall } from "./policy-view.ts";
import type { DemoAction, DemoPhase } from "./scenario.ts";

/** Running counts of what served the calls so far. */
export interface TrafficTally {
  calls: number;
  /** Calls per serving step index. */
  steps: number[];
  failed: number;
  cacheHits: number;
}

export interface TrafficHooks {
  /** Puts a phase's faults in force (replacing the previous phase's). */
  readonly setFaults: (rules: readonly FaultRule[]) => void;
  /** Runs an operator action; returns a line to print. */
  readonly runAction: (action: DemoAction) => Promise<string>;
  readonly onPhaseStart?: (phase: DemoPhase, index: number, size: number) => void;
  readonly onCall?: (tally: TrafficTally) => void;
  readonly onNote?: (line: string) => void;
}

export interface TrafficOptions {
  readonly client: GatewayClient;
  readonly route: string;
  readonly phases: readonly DemoPhase[];
  readonly sizes: readonly number[];
  readonly concurrency: number;
  /** Target calls per second; pacing keeps phases long enough for breakers to cool down. */
  readonly ratePerSecond: number;
  readonly hooks: TrafficHooks;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
  /**
   * A route with a routing policy that every other call takes instead of `route` (every call when
   * it is `route`), with a plan in its metadata and questions of three complexities
   * (`policy-view.ts`).
   */
  readonly policyRoute?: string;
}

/** Runs every phase; resolves with the final tally once every call has finished. */
export async function runTraffic(options: TrafficOptions): Promise<TrafficTally> {
  const tally: TrafficTally = { calls: 0, steps: [], failed: 0, cacheHits: 0 };
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? (() => Date.now());
  const interval = 1000 / options.ratePerSecond;
  let sequence = 0;
  let plainTurn = 0;
  let policyTurn = 0;

  for (const [phaseIndex, phase] of options.phases.entries()) {
    const size = options.sizes[phaseIndex] ?? 0;
    options.hooks.onPhaseStart?.(phase, phaseIndex, size);
    options.hooks.setFaults(phase.faults);
    const pending = [...phase.actions].sort((a, b) => a.at - b.at);
    const inFlight = new Set<Promise<void>>();
    const phaseStart = now();
    for (let index = 0; index < size; index++) {
      while (pending.length > 0 && pending[0]!.at * size <= index) {
        options.hooks.onNote?.(await options.hooks.runAction(pending.shift()!));
      }
      while (inFlight.size >= options.concurrency) await Promise.race(inFlight);
      const wait = phaseStart + index * interval - now();
      if (wait > 0) await sleep(wait);
      const turn = sequence++;
      const policy =
        options.policyRoute !== undefined &&
        (options.policyRoute === options.route || turn % 2 === 1);
      const next = demoCall(policy ? policyTurn++ : plainTurn++, policy);
      const route = policy ? (options.policyRoute ?? options.route) : options.route;
      const call = sendOne(options.client, route, next, tally).then(() => {
        inFlight.delete(call);
        options.hooks.onCall?.(tally);
      });
      inFlight.add(call);
    }
    await Promise.all(inFlight);
    for (const action of pending) options.hooks.onNote?.(await options.hooks.runAction(action));
  }
  options.hooks.setFaults([]);
  return tally;
}

/** One call; a failure is counted, never thrown (the client has already recorded it). */
async function sendOne(
  client: GatewayClient,
  route: string,
  call: DemoCall,
  tally: TrafficTally,
): Promise<void> {
  let response: ChatResponse | undefined;
  try {
    response = await client.chat({
      route,
      messages: [{ role: "user", content: call.question }],
      maxTokens: 64,
      ...(call.metadata === undefined ? {} : { metadata: call.metadata }),
    });
  } catch {
    response = undefined;
  }
  tally.calls += 1;
  if (!response) {
    tally.failed += 1;
    return;
  }
  const index = response.served.index;
  if (index !== null) tally.steps[index] = (tally.steps[index] ?? 0) + 1;
  if (response.served.cached) tally.cacheHits += 1;
}
