/**
 * @module
 * `GET /health`: the published health of every probed provider/model, for clients that demote
 * degraded or down steps and give a recovered one a probation share. The cron builds the
 * document from the `ProviderMonitor`s' answers and writes it to KV `report:health`; the route
 * serves it with `Cache-Control: private, max-age=60` and an `ETag` (`If-None-Match` → 304). The
 * contract is documented in docs/worker.md.
 */
import type { WorkerView } from "../../config/worker-view.ts";
import { jsonResponse } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import { keyLayout } from "../key-layout.ts";
import {
  type HealthState,
  type ModelRecord,
  probationInitialShare,
  usualLatency,
} from "./model-health.ts";

/** One provider/model as `GET /health` publishes it. */
export interface ModelHealthEntry {
  readonly provider: string;
  readonly model: string;
  readonly state: HealthState;
  /** Why it is not healthy; null when it is. */
  readonly reason: string | null;
  /** When it entered `state` (ISO). */
  readonly since: string;
  /** Probes in a row in `state`. */
  readonly consecutive: number;
  readonly checkedAt: string;
  /** ms to the answer's headers in the latest probe; null without an answer. */
  readonly latencyMs: number | null;
  /** Median of its last good probes; null before any. */
  readonly usualLatencyMs: number | null;
  readonly slowMs: number;
  /** HTTP status of the latest probe; 0 without an answer. */
  readonly httpStatus: number;
  /** Set while a recovered model is on probation (see docs/worker.md). */
  readonly probation: {
    readonly startedAt: string;
    readonly endsAt: string;
    readonly initialShare: number;
  } | null;
}

/** What `GET /health` answers. */
export interface HealthDocument {
  readonly probesEnabled: boolean;
  /** When the cron published it; null before the first probes. */
  readonly generatedAt: string | null;
  readonly probationSeconds: number;
  /** Sorted by provider, then model. */
  readonly models: readonly ModelHealthEntry[];
  /** Per provider: the worst state of its models and their names. */
  readonly providers: Readonly<
    Record<string, { readonly state: HealthState; readonly models: readonly string[] }>
  >;
}

/** A monitor's record with what the document adds. */
export interface ModelHealthView {
  readonly provider: string;
  readonly slowMs: number;
  readonly record: ModelRecord;
}

const rank: Record<HealthState, number> = { healthy: 0, degraded: 1, down: 2 };

/** The document for a set of records. */
export function healthDocument(
  config: WorkerView,
  views: readonly ModelHealthView[],
  now: number | null,
): HealthDocument {
  const models = views
    .map(
      ({ provider, slowMs, record }): ModelHealthEntry => ({
        provider,
        model: record.model,
        state: record.state,
        reason: record.reason,
        since: iso(record.since),
        consecutive: record.consecutive,
        checkedAt: iso(record.last.checkedAt),
        latencyMs: record.last.latencyMs,
        usualLatencyMs: usualLatency(record.latencies),
        slowMs,
        httpStatus: record.last.httpStatus,
        probation:
          record.probation === null
            ? null
            : {
                startedAt: iso(record.probation.startedAt),
                endsAt: iso(record.probation.endsAt),
                initialShare: probationInitialShare,
              },
      }),
    )
    // Code-unit order (`<`), the same in every runtime and locale (the contract in docs/worker.md).
    .sort((a, b) => codePointOrder(`${a.provider}/${a.model}`, `${b.provider}/${b.model}`));
  const providers: Record<string, { state: HealthState; models: string[] }> = {};
  for (const entry of models) {
    const known = providers[entry.provider];
    if (known === undefined)
      providers[entry.provider] = { state: entry.state, models: [entry.model] };
    else {
      known.models.push(entry.model);
      if (rank[entry.state] > rank[known.state]) known.state = entry.state;
    }
  }
  return {
    probesEnabled: config.worker.healthProbe.enabled,
    generatedAt: now === null ? null : iso(now),
    probationSeconds: config.worker.healthProbe.probationSeconds,
    models,
    providers,
  };
}

/** How long a client may reuse the document. */
export const healthMaxAgeSeconds = 60;

/** `GET /health`: the latest published document, cacheable. */
export async function healthResponse(request: Request, context: HandlerContext): Promise<Response> {
  const { config } = context.settings;
  // With probes off, an old document (from when they were on) would pass for today's health.
  const stored = config.worker.healthProbe.enabled
    ? await context.edge.text(keyLayout.healthReport)
    : null;
  const text = stored ?? JSON.stringify(healthDocument(config, [], null));
  const etag = `"${await digest(text)}"`;
  const headers = {
    "cache-control": `private, max-age=${healthMaxAgeSeconds}`,
    etag,
    vary: "authorization, cf-aig-authorization, x-api-key",
  };
  if (matchesEtag(request.headers.get("if-none-match"), etag))
    return new Response(null, { status: 304, headers });
  const response = jsonResponse(JSON.parse(text) as HealthDocument);
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/** `If-None-Match` (RFC 9110 §13.1.2): `*` or a list of tags, compared weakly (`W/` ignored). */
function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

async function digest(text: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(hash).slice(0, 12)]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("");
}

function codePointOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
