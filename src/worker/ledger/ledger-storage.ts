/**
 * @module
 * Where the ledger keeps its truth: the Durable Object's own storage (strongly consistent,
 * transactional), under these keys:
 *
 * | storage key                   | value                                      |
 * |-------------------------------|--------------------------------------------|
 * | `revision`                    | the last committed revision (a counter)    |
 * | `pointer:{provider}`          | {@link LedgerPointer}                      |
 * | `version:{provider}:{version}`| {@link LedgerVersion}: metadata and the key (null once revoked) |
 * | `app:{id}`                    | `StoredAppToken`                           |
 * | `outbox:{target}:{entry}`     | {@link OutboxEntry}: an edge record not yet written |
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
}

export const ledgerKeys = {
  revision: "revision",
  pointer: (provider: string) => `pointer:${provider}`,
  pointerPrefix: "pointer:",
  version: (provider: string, version: string) => `version:${provider}:${version}`,
  versionPrefix: (provider: string) => `version:${provider}:`,
  app: (id: string) => `app:${id}`,
  appPrefix: "app:",
  outbox: (target: string, entry: string) => `outbox:${target}:${entry}`,
  outboxPrefix: "outbox:",
} as const;

/** Reads the truth; what write-through targets are given. */
export interface LedgerReader {
  pointer(provider: string): Promise<LedgerPointer | undefined>;
  version(provider: string, version: string): Promise<LedgerVersion | undefined>;
  app(id: string): Promise<import("../key-layout.ts").StoredAppToken | undefined>;
}

/** A {@link LedgerReader} over the storage. */
export function storageReader(storage: LedgerStorage): LedgerReader {
  return {
    pointer: (provider) => storage.get<LedgerPointer>(ledgerKeys.pointer(provider)),
    version: (provider, version) =>
      storage.get<LedgerVersion>(ledgerKeys.version(provider, version)),
    app: (id) => storage.get(ledgerKeys.app(id)),
  };
}
