/**
 * @module
 * Where the Worker keeps things in its KV namespace (`KEYS`), in one place:
 *
 * | KV key                         | value                         | metadata            |
 * |--------------------------------|-------------------------------|---------------------|
 * | `key:{provider}:{version}`     | the provider key (secret)     | {@link StoredKeyMetadata} |
 * | `current:{provider}`           | {@link CurrentPointer} JSON   | —                   |
 * | `app:{id}`                     | {@link StoredAppToken} JSON   | public part of it   |
 * | `rate:{appId}:{windowStart}`   | request count in that window  | —                   |
 * | `health:{provider}`            | latest probe result JSON      | —                   |
 * | `report:keys`                  | last cron key-age report JSON | —                   |
 *
 * Versions are `{epoch ms, 13 digits}-{random}`: unique without coordination and sorted by time
 * in KV's lexicographic list order, so listing `key:{provider}:` gives the history oldest first.
 */

/** Metadata stored beside each key version (KV metadata, at most 1024 bytes). Never the key. */
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

/** The `current:{provider}` pointer. */
export interface CurrentPointer {
  readonly version: string;
  /** The version that was current before; usable during the grace window after `switchedAt`. */
  readonly previous: string | null;
  /** Epoch ms of the switch. */
  readonly switchedAt: number;
}

/** What `app:{id}` holds. The token itself is never stored, only its SHA-256. */
export interface StoredAppToken {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
  /** Per-app override of `worker.appRateLimit`. */
  readonly rateLimit: { readonly limit: number; readonly windowSeconds: number } | null;
  readonly tokenSha256: string;
}

export const keyLayout = {
  version: (provider: string, version: string) => `key:${provider}:${version}`,
  versionPrefix: (provider: string) => `key:${provider}:`,
  current: (provider: string) => `current:${provider}`,
  currentPrefix: "current:",
  app: (id: string) => `app:${id}`,
  appPrefix: "app:",
  rate: (appId: string, windowStart: number) => `rate:${appId}:${windowStart}`,
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
export function isExpired(metadata: StoredKeyMetadata, now: number): boolean {
  return metadata.expiresAt !== null && metadata.expiresAt <= now;
}

/** The smallest TTL KV accepts, in seconds. */
export const minimumKvTtlSeconds = 60;
