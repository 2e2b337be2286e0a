/**
 * @module
 * What every route handler gets: the stores built from this request's bindings, the settings,
 * and the injected clock, fetch and logger. Built fresh per request by `createWorker`.
 */
import type { AppTokenStore } from "./app-tokens.ts";
import type { AnalyticsDatasetLike, ExecutionContextLike, KvNamespaceLike } from "./bindings.ts";
import type { KeyReportSettings } from "./key-report.ts";
import type { KeyStore } from "./key-store.ts";
import type { WorkerSettings } from "./settings.ts";

/** A `fetch` function; `globalThis.fetch` by default, looked up at call time. */
export type FetchFunction = (
  input: Request | string | URL,
  init?: RequestInit,
) => Promise<Response>;

/** Where the Worker writes log lines. Lines never carry a key or a token. */
export interface WorkerLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Per-request state shared by the handlers. */
export interface HandlerContext {
  readonly kv: KvNamespaceLike;
  readonly settings: WorkerSettings;
  readonly keys: KeyStore;
  readonly apps: AppTokenStore;
  readonly events: AnalyticsDatasetLike | undefined;
  readonly execution: ExecutionContextLike;
  readonly fetch: FetchFunction;
  readonly logger: WorkerLogger;
  now(): number;
  /** Settings for key reports at this moment. */
  reportSettings(): KeyReportSettings;
}
