/**
 * @module
 * What the Worker keeps where. The `KeyLedger` Durable Object holds the truth (every key
 * version, each provider's pointer, history, revocations, app tokens; see `ledger/`); Workers
 * KV (`KEYS`) is the edge read path, written only by the ledger, never by a request:
 *
 * | KV key              | value                                   | written by             |
 * |---------------------|-----------------------------------------|------------------------|
 * | `current:{provider}`| {@link EdgeKeyRecord} JSON: the key the proxy injects | the ledger (write-through) |
 * | `app:{id}`          | {@link StoredAppToken} JSON: an app's token digest and limit | the ledger (write-through) |
 * | `health:{provider}` | latest probe result JSON                | the cron               |
 * | `report:keys`       | last cron key-age report JSON           | the cron               |
 *
 * Versions are `{epoch ms, 13 digits}-{random}`: unique without coordination and sorted by time.
 */

/** Metadata of one key version. Never the key. */
export interface StoredKeyMetadata {
  readonly provider: string;
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

/** What `current:{provider}` holds at the edge: the one key the proxy may inject. */
export interface EdgeKeyRecord {
  readonly version: string;
  readonly key: string;
  /** Epoch ms after which the proxy stops sending it; null when it does not expire. */
  readonly expiresAt: number | null;
  /** Epoch ms when the ledger made this version current. */
  readonly switchedAt: number;
}

/** An app token as stored: the token itself never is, only its SHA-256. */
export interface StoredAppToken {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
  /** Per-app override of `worker.appRateLimit`. */
  readonly rateLimit: { readonly limit: number; readonly windowSeconds: number } | null;
  readonly tokenSha256: string;
}

/** KV key names of the edge read path. */
export const keyLayout = {
  current: (provider: string) => `current:${provider}`,
  app: (id: string) => `app:${id}`,
  health: (provider: string) => `health:${provider}`,
  healthPrefix: "health:",
  keyReport: "report:keys",
} as const;

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
