/**
 * @module
 * The companion Worker: provider keys in Workers KV with authenticated rotation, history and
 * rollback; app tokens; a key-injecting proxy in front of AI Gateway; a cron job that sweeps
 * history, flags old keys and probes provider health.
 *
 * Bindings (see `wrangler.jsonc`): KV `KEYS`; secrets `ROTATE_TOKEN`, `GATEWAY_TOKEN` (optional);
 * vars `GATEWAY_URL`, `STEPWISE_CONFIG`; Analytics Engine dataset `EVENTS` (optional).
 *
 * The default export is the Worker wrangler deploys; `createWorker` builds one with an injected
 * clock, `fetch` or logger.
 */
import { createWorker } from "./create-worker.ts";

export { AppTokenStore, type AppView } from "./app-tokens.ts";
export type * from "./bindings.ts";
export {
  createWorker,
  type StepwiseWorker,
  type WorkerOptions,
} from "./create-worker.ts";
export { WorkerError } from "./errors.ts";
export type { FetchFunction, WorkerLogger } from "./handler-context.ts";
export type { ProviderHealth } from "./health.ts";
export { type CurrentPointer, keyLayout, type StoredKeyMetadata } from "./key-layout.ts";
export type { KeyFlag, KeyVersionView, ProviderKeysView } from "./key-report.ts";
export { KeyStore, type KeyStoreOptions, type UsableKey } from "./key-store.ts";
export type { ScheduledResult } from "./scheduled.ts";

export default createWorker();
