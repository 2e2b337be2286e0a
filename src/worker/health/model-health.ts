/**
 * @module
 * The published health of one provider/model, as pure decisions over its probe history (kept
 * by the provider's `ProviderMonitor`; the cron probes, this decides):
 *
 * - `down`: the probe failed (no answer, a timeout, any status but 2xx and 429);
 * - `degraded`: it answered but slower than `slowMs`, or slower than 3× its usual latency (the
 *   median of its last {@link historySize} good probes), or with a 429, or with a body that does
 *   not parse as the provider's answer;
 * - `healthy` otherwise.
 *
 * A model that becomes healthy after being degraded or down is on **probation** for
 * `probationSeconds`: clients should give it a share of its traffic that grows linearly from
 * {@link probationInitialShare} at `probation.startedAt` to 1 at `probation.endsAt` (documented in
 * docs/worker.md, `GET /health`).
 */

export type HealthState = "healthy" | "degraded" | "down";

/** What one probe saw. */
export interface ProbeResult {
  readonly model: string;
  /** ms to the answer's headers; null when there was no answer. */
  readonly latencyMs: number | null;
  /** 0 when there was no answer. */
  readonly httpStatus: number;
  /** False when a 2xx body did not parse as the provider's answer. */
  readonly parsed: boolean;
  readonly checkedAt: number;
}

/** The slice of a model's history kept between probes. */
export interface ModelRecord {
  readonly model: string;
  readonly state: HealthState;
  readonly reason: string | null;
  /** Epoch ms when it entered `state`. */
  readonly since: number;
  /** Probes in a row in `state`. */
  readonly consecutive: number;
  /** Latencies of the last good probes, newest last. */
  readonly latencies: readonly number[];
  readonly last: ProbeResult;
  /** Set while a recovery is on probation. */
  readonly probation: { readonly startedAt: number; readonly endsAt: number } | null;
}

/** How many good latencies make the usual latency. */
export const historySize = 10;
/** The share of traffic a model on probation gets at its start. */
export const probationInitialShare = 0.1;

/** The median of the kept latencies; null before any good probe. */
export function usualLatency(latencies: readonly number[]): number | null {
  if (latencies.length === 0) return null;
  const sorted = [...latencies].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The record after a probe. */
export function nextRecord(
  previous: ModelRecord | undefined,
  probe: ProbeResult,
  settings: { readonly slowMs: number; readonly probationSeconds: number },
): ModelRecord {
  const usual = usualLatency(previous?.latencies ?? []);
  const { state, reason } = classify(probe, usual, settings.slowMs);
  const now = probe.checkedAt;
  const changed = previous === undefined || previous.state !== state;
  const recovered = previous !== undefined && previous.state !== "healthy" && state === "healthy";
  let probation = previous?.probation ?? null;
  if (state !== "healthy") probation = null;
  else if (recovered && settings.probationSeconds > 0) {
    probation = { startedAt: now, endsAt: now + settings.probationSeconds * 1000 };
  } else if (probation !== null && probation.endsAt <= now) probation = null;
  const good = probe.latencyMs !== null && probe.httpStatus >= 200 && probe.httpStatus < 300;
  const latencies = good
    ? [...(previous?.latencies ?? []), probe.latencyMs!].slice(-historySize)
    : (previous?.latencies ?? []);
  return {
    model: probe.model,
    state,
    reason,
    since: changed ? now : previous.since,
    consecutive: changed ? 1 : previous.consecutive + 1,
    latencies,
    last: probe,
    probation,
  };
}

function classify(
  probe: ProbeResult,
  usual: number | null,
  slowMs: number,
): { state: HealthState; reason: string | null } {
  const { httpStatus, latencyMs } = probe;
  if (httpStatus === 429) return { state: "degraded", reason: "rate limited (429)" };
  if (httpStatus < 200 || httpStatus >= 300 || latencyMs === null) {
    return {
      state: "down",
      reason: httpStatus === 0 ? "no answer within the probe's timeout" : `answered ${httpStatus}`,
    };
  }
  if (!probe.parsed) return { state: "degraded", reason: "the answer did not parse" };
  if (latencyMs >= slowMs) {
    return { state: "degraded", reason: `slower than slowMs (${latencyMs} ≥ ${slowMs} ms)` };
  }
  if (usual !== null && latencyMs >= 3 * usual) {
    return {
      state: "degraded",
      reason: `3× slower than usual (${latencyMs} ms, usually ${Math.round(usual)} ms)`,
    };
  }
  return { state: "healthy", reason: null };
}
