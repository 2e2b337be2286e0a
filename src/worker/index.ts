/**
 * @module
 * The companion Worker: provider keys held by one Durable Object (`KeyLedger`, the single
 * writer of rotation, rollback, revocation and app tokens) and written through to Workers KV, the
 * proxy's edge read path; exact per-app limits (`AppLimiter`, one Durable Object per app); a
 * key-injecting proxy in front of AI Gateway that scrubs every secret from what it returns; one
 * Analytics Engine point per call; a cron job that sweeps history, flags old keys and probes
 * provider health.
 *
 * Bindings (see `wrangler.jsonc`): KV `KEYS`; Durable Objects `KEY_LEDGER`, `APP_LIMITER`,
 * `PROVIDER_MONITOR`; secrets `ROTATE_TOKEN`, `GATEWAY_TOKEN` (optional), `SECRETS_STORE_TOKEN`
 * (optional); vars `GATEWAY_URL`, `STEPWISE_CONFIG`, `BYOK_STORE_ID`, `CLOUDFLARE_API_URL`;
 * Analytics Engine dataset `EVENTS` (optional).
 *
 * The default export is the Worker wrangler deploys; `createWorker` builds one with an injected
 * clock, `fetch` or logger.
 */
import { createWorker } from "./create-worker.ts";

export {
  type AppLimiterApi,
  FixedWindowCounter,
  type RateLimit,
  type RateLimitDecision,
} from "./app-limiter.ts";
export { type AppView, appView, newAppToken, verifyAppToken } from "./app-tokens.ts";
export type * from "./bindings.ts";
export {
  createWorker,
  type StepwiseWorker,
  type WorkerOptions,
} from "./create-worker.ts";
export { AppLimiter, KeyLedger, ProviderMonitor } from "./durable-objects.ts";
export { EdgeReader, type UsableKey } from "./edge-reader.ts";
export { WorkerError } from "./errors.ts";
export type { FetchFunction, TimerFunction, WorkerLogger } from "./handler-context.ts";
export type { HealthDocument, ModelHealthEntry } from "./health/health-document.ts";
export { ModelHealthBook } from "./health/model-health-book.ts";
export {
  type EdgeKeyRecord,
  type EdgePoolKey,
  type EdgePoolRecord,
  keyLayout,
  type StoredAppToken,
  type StoredKeyMetadata,
} from "./key-layout.ts";
export { type ByokTargetOptions, byokSecretTarget } from "./ledger/byok-target.ts";
export { KeyLedgerCore, type KeyLedgerOptions } from "./ledger/key-ledger.ts";
export type {
  KeyFlag,
  KeyVersionView,
  PoolKeyView,
  ProviderKeysView,
} from "./ledger/key-versions-view.ts";
export { kvEdgeTarget } from "./ledger/kv-edge-target.ts";
export type * from "./ledger/ledger-api.ts";
export type { LedgerStorage } from "./ledger/ledger-storage.ts";
export type { LedgerChange, WriteThroughTarget } from "./ledger/write-through.ts";
export { KeyPoolTracker } from "./pool/key-tracker.ts";
export type { ProviderMonitorApi } from "./pool/monitor-api.ts";
export { KeyPoolMonitorCore } from "./pool/provider-monitor.ts";
export type { ScheduledResult } from "./scheduled.ts";

export default createWorker();
