/**
 * @module
 * The bindings the companion Worker reads, typed structurally so the Worker code type-checks
 * without the Workers runtime types and tests can pass fakes (a recording Analytics Engine
 * dataset, a different clock). The names are the contract with `wrangler.jsonc` and Pulumi.
 */

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

/** The part of a Workers KV namespace binding that the Worker uses. */
export interface KvNamespaceLike {
  get(key: string, type: "text"): Promise<string | null>;
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
  /** Provider keys, key versions, app tokens, rate-limit counters and health results. */
  KEYS: KvNamespaceLike;
  /** Admin bearer token of the key API (Worker secret). */
  ROTATE_TOKEN?: string;
  /** Sent upstream as `cf-aig-authorization: Bearer …` when set (Worker secret). */
  GATEWAY_TOKEN?: string;
  /** Base URL of the gateway, e.g. `https://gateway.ai.cloudflare.com` or the emulator's URL. */
  GATEWAY_URL?: string;
  /** The parsed Stepwise config as JSON text (or a JSON binding's object). */
  STEPWISE_CONFIG?: unknown;
  /** Workers Analytics Engine dataset for one event per proxied call (optional). */
  EVENTS?: AnalyticsDatasetLike;
}
