/**
 * @module
 * The proxy's read path: the record of each provider's pool of current keys (`current:{provider}`)
 * and of each app token (`app:{id}`), written through to KV by the ledger. Reads never lead to a
 * write.
 *
 * An isolate keeps what it read for {@link defaultEdgeCacheMs} (1 s) and each call reads each KV
 * key at most once; busy isolates so make about one KV read per key per second instead of one per
 * call. What this adds to a change's reach is small beside KV's own propagation (about 60 s to
 * other locations), and an isolate that handled the admin call forgets the records it changed, so
 * it reads them again at once.
 *
 * Only settled texts are shared between calls, never a read in flight: in workerd a read belongs
 * to the request that started it, and one that request's end abandons never settles, so a shared
 * promise would hang every later call that waited on it (issue #23). Concurrent calls on a cold
 * entry each read KV once; the first to finish fills the cache.
 */
import type { KvNamespaceLike } from "./bindings.ts";
import {
  defaultKeyName,
  type EdgeKeyRecord,
  type EdgePoolRecord,
  isExpired,
  keyLayout,
  type StoredAppToken,
} from "./key-layout.ts";

/** How long an isolate reuses an edge record it read. */
export const defaultEdgeCacheMs = 1000;

/** A key the proxy may use now, with the pool key and version it came from. */
export interface UsableKey {
  /** The pool key's name (`default` unless named). */
  readonly name: string;
  readonly key: string;
  readonly version: string;
}

/** What one isolate read from one KV namespace (one location's view), and when: texts only. */
export class EdgeCache {
  readonly #maxAgeMs: number;
  readonly #entries = new Map<string, { readonly text: string | null; readonly readAt: number }>();

  constructor(maxAgeMs: number = defaultEdgeCacheMs) {
    this.#maxAgeMs = maxAgeMs;
  }

  /** The text kept for `key` if it was read less than the maximum age before `now`. */
  kept(key: string, now: number): { readonly text: string | null } | undefined {
    const kept = this.#entries.get(key);
    return kept !== undefined && now - kept.readAt < this.#maxAgeMs ? kept : undefined;
  }

  /** Keeps a text read at `readAt` (a newer reading already kept wins). */
  keep(key: string, text: string | null, readAt: number): void {
    const kept = this.#entries.get(key);
    if (kept === undefined || kept.readAt <= readAt) this.#entries.set(key, { text, readAt });
  }

  /** Drops what was kept for `key`: the next call reads KV. */
  forget(key: string): void {
    this.#entries.delete(key);
  }
}

/** Reads the edge records through one KV namespace, for one request (its reads its own). */
export class EdgeReader {
  readonly #kv: KvNamespaceLike;
  readonly #now: () => number;
  readonly #cache: EdgeCache;
  /** This request's reads in flight: one per key, never handed to another request. */
  readonly #reading = new Map<string, Promise<string | null>>();

  constructor(kv: KvNamespaceLike, now: () => number, cache: EdgeCache = new EdgeCache(0)) {
    this.#kv = kv;
    this.#now = now;
    this.#cache = cache;
  }

  /** Every key of a provider's pool the proxy may inject now (not expired), sorted by name. */
  async usableKeys(provider: string): Promise<UsableKey[]> {
    const record = await this.#json<EdgePoolRecord | EdgeKeyRecord>(keyLayout.current(provider));
    if (record === undefined) return [];
    // A record written before pools holds one key: the pool's `default`.
    const keys = "keys" in record ? record.keys : [{ ...record, name: defaultKeyName }];
    const now = this.#now();
    return keys
      .filter(
        (entry) => typeof entry.key === "string" && entry.key !== "" && !isExpired(entry, now),
      )
      .map((entry) => ({ name: entry.name, key: entry.key, version: entry.version }));
  }

  /**
   * Every value of a provider's keys an answer may carry: the pool's keys (expired ones too) and
   * the retired values the ledger still lists (`retired`), for the scrubber; never to inject.
   */
  async heldValues(provider: string): Promise<string[]> {
    const record = await this.#json<EdgePoolRecord | EdgeKeyRecord>(keyLayout.current(provider));
    if (record === undefined) return [];
    const keys = "keys" in record ? record.keys : [record];
    const retired = "keys" in record ? (record.retired ?? []) : [];
    return [...keys.map((entry) => entry.key), ...retired].filter(
      (value): value is string => typeof value === "string" && value !== "",
    );
  }

  /** The key a single-key call injects: the pool's `default` key, else its first. */
  async usableKey(provider: string): Promise<UsableKey | undefined> {
    const keys = await this.usableKeys(provider);
    return keys.find((entry) => entry.name === defaultKeyName) ?? keys[0];
  }

  /** An app's stored token record. */
  app(id: string): Promise<StoredAppToken | undefined> {
    return this.#json<StoredAppToken>(keyLayout.app(id));
  }

  /** The text of any edge record (e.g. the published health), through the isolate's cache. */
  text(key: string): Promise<string | null> {
    return this.#read(key);
  }

  /** Forgets kept records after this isolate changed them through the ledger. */
  forget(...keys: readonly string[]): void {
    for (const key of keys) {
      this.#cache.forget(key);
      this.#reading.delete(key);
    }
  }

  /** The text of `key`: kept if read less than the maximum age ago, else read (once) from KV. */
  async #read(key: string): Promise<string | null> {
    const now = this.#now();
    const kept = this.#cache.kept(key, now);
    if (kept !== undefined) return kept.text;
    let reading = this.#reading.get(key);
    if (reading === undefined) {
      reading = this.#kv.get(key, "text").then((text) => {
        this.#cache.keep(key, text, now);
        return text;
      });
      this.#reading.set(key, reading);
      // A failed read is not kept: the next call of this request reads again.
      reading.catch(() => this.#reading.delete(key));
    }
    return reading;
  }

  async #json<Value>(key: string): Promise<Value | undefined> {
    const text = await this.#read(key);
    if (text === null) return undefined;
    try {
      return JSON.parse(text) as Value;
    } catch {
      return undefined;
    }
  }
}
