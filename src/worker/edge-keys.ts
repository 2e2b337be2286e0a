/**
 * @module
 * The proxy's read path: one KV read per provider (`current:{provider}`, the record the ledger
 * writes through) and one per app token (`app:{id}`). Reads never lead to a write. A location
 * may read a record up to KV's propagation time (about 60 s) after the ledger changed it; see
 * docs/worker.md for what that means for a revoked key.
 */
import type { KvNamespaceLike } from "./bindings.ts";
import { type EdgeKeyRecord, isExpired, keyLayout, type StoredAppToken } from "./key-layout.ts";

/** A key the proxy may use now, with the version it came from. */
export interface UsableKey {
  readonly key: string;
  readonly version: string;
}

/** Reads the edge records through one KV namespace. */
export class EdgeReader {
  readonly #kv: KvNamespaceLike;
  readonly #now: () => number;

  constructor(kv: KvNamespaceLike, now: () => number) {
    this.#kv = kv;
    this.#now = now;
  }

  /** The key to inject for a provider; undefined when there is none or it has expired. */
  async usableKey(provider: string): Promise<UsableKey | undefined> {
    const record = await this.#json<EdgeKeyRecord>(keyLayout.current(provider));
    if (record === undefined || typeof record.key !== "string" || record.key === "") {
      return undefined;
    }
    if (isExpired(record, this.#now())) return undefined;
    return { key: record.key, version: record.version };
  }

  /** An app's stored token record. */
  app(id: string): Promise<StoredAppToken | undefined> {
    return this.#json<StoredAppToken>(keyLayout.app(id));
  }

  async #json<Value>(key: string): Promise<Value | undefined> {
    const text = await this.#kv.get(key, "text");
    if (text === null) return undefined;
    try {
      return JSON.parse(text) as Value;
    } catch {
      return undefined;
    }
  }
}
