/**
 * @module
 * The demo says why calls fail. Before the run, `rateLimitWarning` compares the planned traffic
 * with the gateway's rate limit (a run that sends more calls in one window than the limit allows
 * gets 429s by design, not because anything broke). After it, `explainFailures` names each error
 * code with its count and its likely cause: the rate limit, a machine starved for CPU (measured),
 * or the scenario's faults.
 */
import type { GatewayConfig } from "../config/index.ts";
import { type StarvationVerdict, starvationNote } from "./event-loop-lag.ts";

/** The most calls `calls` sent at `ratePerSecond` put into any window of `windowSeconds`. */
export function callsPerWindow(
  calls: number,
  ratePerSecond: number,
  windowSeconds: number,
): number {
  return Math.min(calls, Math.ceil(ratePerSecond * windowSeconds));
}

/**
 * A warning when the run sends more calls in one rate-limit window than the gateway allows, with
 * how many will be refused and what to change; `undefined` when the traffic fits.
 */
export function rateLimitWarning(
  gateway: Pick<GatewayConfig, "id" | "rateLimit">,
  calls: number,
  ratePerSecond: number,
): string | undefined {
  const limit = gateway.rateLimit;
  if (limit === undefined) return undefined;
  const inWindow = callsPerWindow(calls, ratePerSecond, limit.interval);
  if (inWindow <= limit.limit) return undefined;
  const fitting = Math.floor(limit.limit / limit.interval);
  return `${calls} calls at ${ratePerSecond}/s put up to ${inWindow} calls in one ${limit.interval} s window, but gateway ${gateway.id} allows ${limit.limit} (its rateLimit): about ${inWindow - limit.limit} will be answered 429 rate_limited. Send at most ${limit.limit} calls (--calls), or at most ${Math.max(fitting, 1)}/s (--rate), or raise rateLimit in the config.`;
}

/** What the failed calls of a run were, by error code. */
export type FailureCounts = ReadonlyMap<string, number>;

const causes: Readonly<Record<string, string>> = {
  rate_limited: "429: a rate limit refused them (the gateway's rateLimit or the app's limit)",
  all_steps_failed: "every step of the route failed (the scenario's faults)",
  incomplete_stream: "a stream broke after its first byte (the scenario's faults)",
};

/** Whether an error code means the call ran out of time. */
function isTimeout(code: string): boolean {
  return code === "deadline_exceeded" || code === "timeout";
}

/**
 * One line per error code, most frequent first: `400 rate_limited — 429: a rate limit refused
 * them …`. Timeouts on a starved machine name the starvation; elsewhere, the faults.
 */
export function explainFailures(failures: FailureCounts, starvation: StarvationVerdict): string[] {
  const note = starvationNote(starvation);
  return [...failures]
    .sort(([, a], [, b]) => b - a)
    .map(([code, count]) => {
      const cause = isTimeout(code)
        ? (note ?? "they ran out of time: the scenario's hangs outlasted the call's deadline")
        : (causes[code] ?? "see the events file for each call's status and error");
      return `${count} ${code} — ${cause}`;
    });
}
