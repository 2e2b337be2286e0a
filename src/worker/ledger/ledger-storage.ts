/**
 * @module
 * Where the ledger keeps its truth: the Durable Object's own storage (strongly consistent,
 * transactional), under these keys:
 *
 * | storage key                   | value                                      |
 * |-------------------------------|--------------------------------------------|
 * | `layout`                      | the layout version of these keys (2)       |
 * | `revision`                    | the last committed revision (a counter)    |
 * | `pointer:{provider}:{name}`   | {@link LedgerPointer} of one key of the provider's pool |
 * | `version:{provider}:{name}:{version}` | {@link LedgerVersion}: metadata and the key (null once revoked) |
 * | `remembered:{provider}:{name}:{version}` | {@link RememberedSecret}: an erased value, kept for scrubbing only (`remembered-secrets.ts`) |
 * | `app:{id}`                    | `StoredAppToken`                           |
 * | `outbox:{target}:{entry}`     | {@link OutboxEntry}: an edge record not yet written |
 *
 * Provider slugs, pool key names and version ids hold no `:`, so every key splits unambiguously.
 * Layout 1 (before pools) had `pointer:{provider}` and `version:{provider}:{version}`;
 * `migrateLayout` (`ledger-migration.ts`) moves those to the `default` key of each pool.
 *
 * {@link LedgerStorage} is the part of `DurableObjectStorage` the ledger uses, so tests can run
 * the ledger on an in-memory store.
 */
import type { StoredKeyMetadata } from "../key-layout.ts";
import type { LedgerPointer } from "./ledger-api.ts";

/** The part of a Durable Object's storage the ledger uses. */
export interface LedgerStorage {
  get<Value>(key: string): Promise<Value | undefined>;
  get<Value>(keys: string[]): Promise<Map<string, Value>>;
  /** Writes made without an `await` in between commit together (Durable Objects' write coalescing). */
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list<Value>(options: { prefix: string }): Promise<Map<string, Value>>;
}

/** One stored key version. */
export interface LedgerVersion {
  readonly metadata: StoredKeyMetadata;
  /** The provider key; null once revoked (erased). */
  readonly key: string | null;
}

/**
 * A value the ledger no longer keeps as a version (revoked, or its history swept) but may still be
 * in an answer the gateway cached: the proxy scrubs it until `forgetAt`, and never injects it.
 */
export interface RememberedSecret {
  readonly key: string;
  /** Epoch ms after which no cached answer can hold it (its end plus the longest cache TTL). */
  readonly forgetAt: number;
}

/** An edge record that must be brought in line with the truth. */
export interface OutboxEntry {
  readonly target: string;
  readonly entry: string;
  /** Revision that last changed what the entry shows. */
  readonly revision: number;
  /** Failed attempts so far. */
  readonly attempts: number;
  /** Epoch ms before which it is not retried. */
  readonly notBefore: number;
  /** The provider whose keys the entry serves; absent for app entries. */
  readonly provider?: string;
  /** Why the last attempt failed (never a value). */
  readonly lastError?: string;
}

export const ledgerKeys = {
  layout: "layout",
  revision: "revision",
  pointer: (provider: string, name: string) => `pointer:${provider}:${name}`,
  /** Every pointer of one provider's pool, or of every provider without an argument. */
  pointerPrefix: (provider?: string) =>
    provider === undefined ? "pointer:" : `pointer:${provider}:`,
  version: (provider: string, name: string, version: string) =>
    `version:${provider}:${name}:${version}`,
  versionPrefix: (provider: string, name: string) => `version:${provider}:${name}:`,
  /** Every version of one provider's pool, of all its keys. */
  providerVersionPrefix: (provider: string) => `version:${provider}:`,
  remembered: (provider: string, name: string, version: string) =>
    `remembered:${provider}:${name}:${version}`,
  /** Every remembered value of one provider, or of every provider without an argument. */
  rememberedPrefix: (provider?: string) =>
    provider === undefined ? "remembered:" : `remembered:${provider}:`,
  app: (id: string) => `app:${id}`,
  appPrefix: "app:",
  outbox: (target: string, entry: string) => `outbox:${target}:${entry}`,
  outboxPrefix: "outbox:",
} as const;

/** The current layout of the ledger's keys. */
export const currentLayout = 2;

/** `pointer:{provider}:{name}` → its provider and name; undefined for another key. */
export function parsePointerKey(key: string): { provider: string; name: string } | undefined {
  const parts = key.split(":");
  if (parts.length !== 3 || parts[0] !== "pointer") return undefined;
  return { provider: parts[1]!, name: parts[2]! };
}

/** Reads the truth; what write-through targets are given. */
export interface LedgerReader {
  pointer(provider: string, name: string): Promise<LedgerPointer | undefined>;
  version(provider: string, name: string, version: string): Promise<LedgerVersion | undefined>;
  /** The names of the keys of a provider's pool, sorted. */
  poolNames(provider: string): Promise<string[]>;
  /**
   * Every value of the provider's keys the ledger still knows: each version's that was not erased
   * and each remembered one (current, previous, history, revoked); sorted, without repeats.
   */
  heldValues(provider: string): Promise<string[]>;
  app(id: string): Promise<import("../key-layout.ts").StoredAppToken | undefined>;
}

/** A {@link LedgerReader} over the storage. */
export function storageReader(storage: LedgerStorage): LedgerReader {
  return {
    pointer: (provider, name) => storage.get<LedgerPointer>(ledgerKeys.pointer(provider, name)),
    version: (provider, name, version) =>
      storage.get<LedgerVersion>(ledgerKeys.version(provider, name, version)),
    async poolNames(provider) {
      const pointers = await storage.list({ prefix: ledgerKeys.pointerPrefix(provider) });
      return [...pointers.keys()].map((key) => parsePointerKey(key)?.name ?? "").sort();
    },
    async heldValues(provider) {
      const [versions, remembered] = await Promise.all([
        storage.list<LedgerVersion>({ prefix: ledgerKeys.providerVersionPrefix(provider) }),
        storage.list<RememberedSecret>({ prefix: ledgerKeys.rememberedPrefix(provider) }),
      ]);
      const values = new Set<string>();
      for (const stored of versions.values()) if (stored.key !== null) values.add(stored.key);
      for (const stored of remembered.values()) values.add(stored.key);
      return [...values].sort();
    },
    app: (id) => storage.get(ledgerKeys.app(id)),
  };
}
