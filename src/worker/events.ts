/**
 * @module
 * One Workers Analytics Engine data point per proxied call, when an `EVENTS` dataset is bound.
 * Writing is best-effort: a failure is logged (without detail) and never fails the call. A data
 * point carries names, numbers and codes only, never a key or a token.
 *
 * Layout (query it with SQL over the dataset):
 * - `index1`: gateway id
 * - `blob1` gateway, `blob2` app id, `blob3` mode (`universal` | `provider` | `compat`),
 *   `blob4` provider, `blob5` model, `blob6` error code, `blob7` cache status, `blob8` key source
 *   (`current` | `previous` | `byok` | `missing`)
 * - `double1` step (-1 when unknown), `double2` HTTP status (0 when the gateway was unreachable),
 *   `double3` latency to first byte in ms, `double4` 1 when ok
 */
import type { AnalyticsDatasetLike } from "./bindings.ts";
import type { WorkerLogger } from "./handler-context.ts";

/** What one proxied call reports. */
export interface ProxyEvent {
  readonly gateway: string;
  readonly appId: string;
  readonly mode: "universal" | "provider" | "compat";
  readonly step: number | null;
  readonly provider: string | null;
  readonly model: string | null;
  readonly status: number;
  readonly latencyMs: number;
  readonly errorCode: string | null;
  readonly cacheStatus: string | null;
  readonly keySource: string | null;
}

/** Writes one data point; never throws. */
export function writeProxyEvent(
  dataset: AnalyticsDatasetLike | undefined,
  event: ProxyEvent,
  logger: WorkerLogger,
): void {
  if (dataset === undefined) return;
  try {
    dataset.writeDataPoint({
      indexes: [event.gateway],
      blobs: [
        event.gateway,
        event.appId,
        event.mode,
        event.provider ?? "",
        event.model ?? "",
        event.errorCode ?? "",
        event.cacheStatus ?? "",
        event.keySource ?? "",
      ],
      doubles: [
        event.step ?? -1,
        event.status,
        Math.round(event.latencyMs),
        event.status >= 200 && event.status < 300 ? 1 : 0,
      ],
    });
  } catch {
    logger.warn("stepwise worker: could not write an Analytics Engine event; the call went on");
  }
}
