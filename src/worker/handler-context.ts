/**
 * @module
 * What every route handler gets: the ledger and limiter stubs and the edge reader built from this
 * request's bindings, the settings, and the injected clock, fetch and logger. Built fresh per
 * request by `createWorker`.
 */

import type { AppLimiterApi } from "./app-limiter.ts";
import type { AnalyticsDatasetLike, ExecutionContextLike, KvNamespaceLike } from "./bindings.ts";
import type { EdgeReader } from "./edge-reader.ts";
import type { KeyReportSettings } from "./ledger/key-versions-view.ts";
import type { KeyLedgerApi } from "./ledger/ledger-api.ts";
import type { KeyPoolTracker } from "./pool/key-tracker.ts";
import type { ProviderMonitorApi } from "./pool/monitor-api.ts";
import type { WorkerSettings } from "./settings.ts";

/** A `fetch` function; `globalThis.fetch` by default, looked up at call time. */
export type FetchFunction = (
  input: Request | string | URL,
  init?: RequestInit,
) => Promise<Response>;

/**
 * Calls `fire` once after `ms` milliseconds unless the returned function cancels it first;
 * `setTimeout` by default, a test clock's timers in tests.
 */
export type TimerFunction = (ms: number, fire: () => void) => () => void;

/** Where the Worker writes log lines. Lines never carry a key or a token. */
export interface WorkerLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Per-request state shared by the handlers. */
export interface HandlerContext {
  /** The KV namespace, for what the cron writes (probe results, the key report). */
  readonly kv: KvNamespaceLike;
  /** The proxy's read path: current keys and app tokens, from KV. */
  readonly edge: EdgeReader;
  /** The single writer of keys and app tokens. */
  readonly ledger: KeyLedgerApi;
  /** The exact request counter of one app. */
  limiter(appId: string): AppLimiterApi;
  /** What this isolate knows about each provider's pool of keys (kept for the isolate's life). */
  readonly pools: KeyPoolTracker;
  /** The shared view of one provider's pool and health. */
  monitor(provider: string): ProviderMonitorApi;
  readonly settings: WorkerSettings;
  readonly events: AnalyticsDatasetLike | undefined;
  readonly execution: ExecutionContextLike;
  readonly fetch: FetchFunction;
  readonly logger: WorkerLogger;
  now(): number;
  /** Epoch ms (the clock of `now`) when the Worker received the request, before any check. */
  readonly receivedAt: number;
  /** Timers on the same clock as `now` (a call's deadline). */
  readonly setTimer: TimerFunction;
  /** Settings for key reports at this moment. */
  reportSettings(): KeyReportSettings;
}
