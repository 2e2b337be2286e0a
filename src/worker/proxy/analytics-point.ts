/**
 * @module
 * One Analytics Engine point per proxied call, in the one schema `analytics-schema.ts` defines
 * (the report reads it back with `decodeCallRow`). The route comes from the client's
 * `cf-aig-metadata` `route` entry (or `dynamic/<route>`), the metadata and event id as
 * `app-scope.ts` sent them upstream (`app` first; `<app>:<id>`), the step, provider and model from
 * the gateway's `cf-aig-*` answer headers and the universal body, tokens and cost from a successful
 * JSON answer's usage (streams leave them unknown).
 * Writing is best-effort: a failure is logged without detail and never fails the call.
 */
import type { WorkerView } from "../../config/worker-view.ts";
import { computeCost, getProvider, isKnownProvider } from "../../providers/index.ts";
import type { TokenUsage } from "../../providers/types.ts";
import type { AttemptPlace } from "../../wire/attempt-place.ts";
import { type CallPoint, type CallPointMode, encodeCallPoint } from "../analytics-schema.ts";
import type { AnalyticsDatasetLike } from "../bindings.ts";
import type { WorkerLogger } from "../handler-context.ts";

/** One step the call asked for. */
export interface AskedStep {
  readonly provider: string;
  readonly model: string | null;
  /** Where its key came from: `current`, `byok` or `missing`. */
  readonly keySource: string;
}

/** What the proxy knows about a call before it is answered. */
export interface CallFacts {
  readonly gateway: string;
  readonly app: string;
  readonly mode: CallPointMode;
  readonly route: string;
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
  readonly eventId: string | null;
  /** The steps in order (one for provider-native and compat calls). */
  readonly steps: readonly AskedStep[];
  /**
   * The app's step index for the index of a step sent upstream, when the Worker sent each step
   * once per key of its pool (or left out steps whose keys were all at their caps).
   */
  readonly stepOf?: (sent: number) => number;
  /**
   * The request's place in the client's route (the `stepwise` metadata entry the client sent:
   * `src/wire/attempt-place.ts`); null for a first, in-order request.
   */
  readonly place?: AttemptPlace | null;
}

/** The step, provider and model that served (or, for a failure, were tried last). */
export function servedStep(
  facts: CallFacts,
  response: Response | undefined,
): {
  step: number | null;
  provider: string | null;
  model: string | null;
  keySource: string | null;
} {
  const headers = response?.headers;
  const named = headers?.get("cf-aig-step")?.trim();
  const sent = named !== undefined && /^\d+$/.test(named) ? Number(named) : null;
  const index = sent === null || facts.stepOf === undefined ? sent : facts.stepOf(sent);
  const ok = response?.ok === true;
  const asked = facts.steps[index ?? (ok && facts.mode !== "dynamic" ? 0 : facts.steps.length - 1)];
  // The app's step of its request, as the step of its route (a re-sent or reordered request).
  const position = index ?? (facts.mode === "dynamic" ? null : 0);
  const place = facts.place ?? null;
  return {
    step:
      ok && position !== null
        ? place === null
          ? position
          : (place.steps[position] ?? null)
        : null,
    provider: headers?.get("cf-aig-provider") ?? asked?.provider ?? null,
    model: headers?.get("cf-aig-model") ?? asked?.model ?? null,
    keySource: asked?.keySource ?? null,
  };
}

/** What the answer brought. */
export interface CallOutcome {
  readonly response: Response | undefined;
  readonly latencyMs: number;
  /** Set when the call failed before or after the answer's status (unreachable, cut stream). */
  readonly errorCode?: string;
  /** The scrubbed body of a successful JSON answer, when short enough to read usage from. */
  readonly body?: Uint8Array | null;
}

/** Builds the point of one call. */
export function callPoint(facts: CallFacts, outcome: CallOutcome, config: WorkerView): CallPoint {
  const { response } = outcome;
  const served = servedStep(facts, response);
  const status = response?.status ?? 0;
  const errorCode =
    outcome.errorCode ?? (response === undefined || response.ok ? null : `http_${status}`);
  const usage = readUsage(facts, served, outcome.body);
  const cost =
    usage === null || served.provider === null || served.model === null
      ? null
      : (computeCost(config.models, served.provider, served.model, usage) ?? null);
  const cache = response?.headers.get("cf-aig-cache-status")?.toUpperCase();
  return {
    gateway: facts.gateway,
    route: facts.route,
    provider: served.provider,
    model: served.model,
    errorCode,
    cacheStatus: cache === "HIT" || cache === "MISS" ? cache : null,
    app: facts.app,
    mode: facts.mode,
    keySource: served.keySource,
    eventId: response?.headers.get("cf-aig-event-id") ?? facts.eventId,
    metadata: facts.metadata,
    step: served.step,
    status,
    // The whole call so far: the client's time before this attempt, then this one's.
    latencyMs: (facts.place?.elapsedMs ?? 0) + outcome.latencyMs,
    ok: errorCode === null && status >= 200 && status < 300,
    tokensIn: usage?.tokensIn ?? null,
    tokensOut: usage?.tokensOut ?? null,
    cost,
    attempt: facts.place?.attempt ?? 1,
  };
}

/** Writes one point; never throws. */
export function writeCallPoint(
  dataset: AnalyticsDatasetLike | undefined,
  point: CallPoint,
  logger: WorkerLogger,
): void {
  if (dataset === undefined) return;
  try {
    dataset.writeDataPoint(encodeCallPoint(point));
  } catch {
    logger.warn("stepwise worker: could not write an Analytics Engine event; the call went on");
  }
}

const decoder = new TextDecoder();

function readUsage(
  facts: CallFacts,
  served: { provider: string | null; model: string | null },
  body: Uint8Array | null | undefined,
): TokenUsage | null {
  if (body === undefined || body === null || body.byteLength === 0) return null;
  const format =
    facts.mode === "compat" || facts.mode === "dynamic" ? "openai" : (served.provider ?? "");
  if (!isKnownProvider(format)) return null;
  try {
    const usage = getProvider(format).parseResponse(
      decoder.decode(body),
      served.model ?? undefined,
    ).usage;
    return Number.isFinite(usage.tokensIn) && Number.isFinite(usage.tokensOut) ? usage : null;
  } catch {
    return null;
  }
}
