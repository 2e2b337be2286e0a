/**
 * @module
 * The bindings the companion Worker reads, typed structurally so the Worker code type-checks
 * without the Workers runtime types and tests can pass fakes (a recording Analytics Engine
 * dataset, a different clock). The names are the contract with `wrangler.jsonc` and Pulumi.
 */

import type { AppLimiterApi } from "./app-limiter.ts";
import type { KeyLedgerApi } from "./ledger/ledger-api.ts";
import type { ProviderMonitorApi } from "./pool/monitor-api.ts";

/** Options of a KV write that this Worker uses. */
export interface KvPutOptions {
  /** Seconds from now after which KV deletes the key; at least 60. */
  expirationTtl?: number;
  metadata?: unknown;
}

/** One entry of a KV list page. */
export interface KvListKey<Metadata> {
  name: string;
  /** Epoch seconds when KV deletes the key, if it expires. */
  expiration?: number;
  metadata?: Metadata;
}

/** How a KV read is made: as text, optionally cached at the location for `cacheTtl` s (≥ 30). */
export type KvGetOptions = "text" | { readonly type: "text"; readonly cacheTtl?: number };

/** The part of a Workers KV namespace binding that the Worker uses. */
export interface KvNamespaceLike {
  get(key: string, type: KvGetOptions): Promise<string | null>;
  getWithMetadata<Metadata>(
    key: string,
    type: "text",
  ): Promise<{ value: string | null; metadata: Metadata | null }>;
  put(key: string, value: string, options?: KvPutOptions): Promise<void>;
  delete(key: string): Promise<void>;
  list<Metadata>(options: {
    prefix: string;
    cursor?: string | null;
    limit?: number;
  }): Promise<
    { keys: KvListKey<Metadata>[] } & (
      | { list_complete: true }
      | { list_complete: false; cursor: string }
    )
  >;
}

/** One Workers Analytics Engine data point. */
export interface AnalyticsDataPoint {
  indexes?: string[];
  blobs?: (string | null)[];
  doubles?: number[];
}

/** The part of a Workers Analytics Engine dataset binding that the Worker uses. */
export interface AnalyticsDatasetLike {
  writeDataPoint(point: AnalyticsDataPoint): void;
}

/**
 * The part of a Durable Object namespace binding that the Worker uses: one named object per
 * name, reached through its RPC stub.
 */
export interface DurableObjectNamespaceLike<Stub> {
  idFromName(name: string): unknown;
  get(id: unknown): Stub;
}

/** Lets work finish after the response is sent. */
export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
}

/** What a cron trigger passes to `scheduled`. */
export interface ScheduledControllerLike {
  readonly scheduledTime: number;
  readonly cron: string;
}

/** The Worker's bindings, by the names in `wrangler.jsonc`. */
export interface WorkerEnv {
  /**
   * The edge read path: each provider's current key and each app's token digest, written only by
   * the `KEY_LEDGER` Durable Object; probe results and the cron's key report.
   */
  KEYS: KvNamespaceLike;
  /** The single writer of the key lifecycle and app tokens (Durable Object `KeyLedger`). */
  KEY_LEDGER: DurableObjectNamespaceLike<KeyLedgerApi>;
  /** Exact per-app request counters, one Durable Object `AppLimiter` per app. */
  APP_LIMITER: DurableObjectNamespaceLike<AppLimiterApi>;
  /**
   * One Durable Object `ProviderMonitor` per provider: the shared view of its pool of keys
   * (usage, cool-downs, caps) and its models' probe history.
   */
  PROVIDER_MONITOR: DurableObjectNamespaceLike<ProviderMonitorApi>;
  /** Admin bearer token of the key API (Worker secret). */
  ROTATE_TOKEN?: string;
  /** Sent upstream as `cf-aig-authorization: Bearer …` when set (Worker secret). */
  GATEWAY_TOKEN?: string;
  /** Base URL of the gateway, e.g. `https://gateway.ai.cloudflare.com` or the emulator's URL. */
  GATEWAY_URL?: string;
  /**
   * The Worker's view of the Stepwise config (`workerViewText` in `src/config`): JSON text, or a
   * JSON binding's object.
   */
  STEPWISE_CONFIG?: unknown;
  /** Workers Analytics Engine dataset for one event per proxied call (optional). */
  EVENTS?: AnalyticsDatasetLike;
  /**
   * API token allowed to edit Secrets Store (nothing else), with which the ledger overwrites the
   * gateways' BYOK secrets after a rotation (Worker secret; optional: without it they stay pending).
   */
  SECRETS_STORE_TOKEN?: string;
  /** The Secrets Store every BYOK gateway points at (its `store_id`). */
  BYOK_STORE_ID?: string;
  /** Cloudflare's API base; empty = `https://api.cloudflare.com/client/v4` (the emulator's locally). */
  CLOUDFLARE_API_URL?: string;
  /** Dataset the cron's daily summary writes one point per route and day to (optional). */
  DAILY_SUMMARY?: AnalyticsDatasetLike;
  /** API token with Account Analytics Read only, for the daily summary (Worker secret; optional). */
  ANALYTICS_API_TOKEN?: string;
  /** The `EVENTS` dataset's name, which the daily summary queries; empty = `stepwise_events`. */
  EVENTS_DATASET?: string;
}
