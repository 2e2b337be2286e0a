/**
 * @module
 * What the Worker keeps where. The `KeyLedger` Durable Object holds the truth (every key
 * version, each provider's pointer, history, revocations, app tokens; see `ledger/`); Workers
 * KV (`KEYS`) is the edge read path, written only by the ledger, never by a request:
 *
 * | KV key              | value                                   | written by             |
 * |---------------------|-----------------------------------------|------------------------|
 * | `current:{provider}`| {@link EdgePoolRecord} JSON: the provider's pool, the keys the proxy may inject and the retired values it scrubs | the ledger (write-through) |
 * | `app:{id}`          | {@link StoredAppToken} JSON: an app's token digest, limit and allowances | the ledger (write-through) |
 * | `report:health`     | the published health of every probed provider/model | the cron      |
 * | `report:keys`       | last cron key-age report JSON           | the cron               |
 *
 * Versions are `{epoch ms, 13 digits}-{random}`: unique without coordination and sorted by time.
 */

/** Metadata of one key version. Never the key. */
export interface StoredKeyMetadata {
  readonly provider: string;
  /** The key of the provider's pool this is a version of (`default` unless named). */
  readonly name: string;
  readonly version: string;
  /** Epoch ms when this version was written. */
  readonly rotatedAt: number;
  /** Epoch ms after which the provider no longer accepts the key; null when it does not expire. */
  readonly expiresAt: number | null;
  /** `sha256:` and 12 hex digits of the key. */
  readonly fingerprint: string;
  /** What rotated it, e.g. `ci:deploy-42` or `stepwise-cli`. */
  readonly label: string;
  /** Epoch ms when it stopped being current; history expires `historyHours` later. */
  readonly retiredAt: number | null;
  /** Epoch ms when it was revoked; its value is erased then. */
  readonly revokedAt: number | null;
}

/** One key of a provider's pool at the edge: the version the proxy may inject now. */
export interface EdgePoolKey {
  /** The pool key's name (`default` unless named). */
  readonly name: string;
  readonly version: string;
  readonly key: string;
  /** Epoch ms after which the proxy stops sending it; null when it does not expire. */
  readonly expiresAt: number | null;
  /** Epoch ms when the ledger made this version current. */
  readonly switchedAt: number;
}

/** What `current:{provider}` holds at the edge: every key of the pool that has a current version. */
export interface EdgePoolRecord {
  /** Sorted by name. */
  readonly keys: readonly EdgePoolKey[];
  /**
   * Every other value of the provider's keys an answer the gateway cached may still carry
   * (previous, history, revoked, within the longest cache TTL): scrubbed, never injected.
   */
  readonly retired?: readonly string[];
}

/** The single-key record written before pools (read as a pool of one `default` key). */
export type EdgeKeyRecord = Omit<EdgePoolKey, "name">;

/**
 * Gateway headers that change what the gateway records or which stored key it uses; an app sends
 * them only when its record allows (`proxy/app-scope.ts`).
 */
export const gatewayControls = [
  "cf-aig-custom-cost",
  "cf-aig-collect-log",
  "cf-aig-collect-log-payload",
  "cf-aig-byok-alias",
] as const;

/** One of {@link gatewayControls}. */
export type GatewayControl = (typeof gatewayControls)[number];

/**
 * What an app may do beyond the default. A list left out does not restrict (every gateway, route
 * and provider the Worker serves); `controls` left out allows none.
 */
export interface AppAllowances {
  readonly gateways?: readonly string[];
  readonly routes?: readonly string[];
  readonly providers?: readonly string[];
  readonly controls?: readonly GatewayControl[];
}

/** An app token as stored: the token itself never is, only its SHA-256. */
export interface StoredAppToken {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
  /** Per-app override of `worker.appRateLimit`. */
  readonly rateLimit: { readonly limit: number; readonly windowSeconds: number } | null;
  /** Absent on records made before allowances existed: no controls, no other restriction. */
  readonly allow?: AppAllowances;
  readonly tokenSha256: string;
}

/** KV key names of the edge read path. */
export const keyLayout = {
  current: (provider: string) => `current:${provider}`,
  app: (id: string) => `app:${id}`,
  healthReport: "report:health",
  keyReport: "report:keys",
} as const;

/** The pool key a provider's key is when none is named: the one BYOK secrets follow. */
export const defaultKeyName = "default";

/**
 * Pool key names: a lowercase letter, then letters, digits and hyphens (32 at most); never a
 * version id (those start with digits) and never `rollback` (a path of its own).
 */
export const keyNamePattern = /^(?!rollback$)[a-z][a-z0-9-]{0,31}$/;

/** Version ids: 13-digit epoch ms, a dash, then lowercase letters and digits. */
export const versionPattern = /^\d{13}-[a-z0-9]{1,32}$/;

/** A new version id for a key written at `nowMs`. */
export function makeVersion(nowMs: number, randomPart: string): string {
  return `${Math.floor(nowMs).toString().padStart(13, "0")}-${randomPart}`;
}

/** True once a key's own `expiresAt` has passed. */
export function isExpired(metadata: { readonly expiresAt: number | null }, now: number): boolean {
  return metadata.expiresAt !== null && metadata.expiresAt <= now;
}
