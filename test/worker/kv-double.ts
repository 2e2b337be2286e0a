/**
 * @module
 * A Workers KV double with Cloudflare's documented semantics, for the Worker tests (local
 * Miniflare KV is strongly consistent and unlimited; real KV is neither):
 *
 * - **Per-location visibility.** A write is visible at once at the location that made it and at
 *   other locations only `propagationMs` later (Cloudflare: "up to 60 seconds or more"). Each
 *   {@link KvDouble.at} view is one location; reads, lists and metadata all follow the rule.
 * - **One write per second per key.** A second put or delete of the same key within 1 s (by the
 *   injected clock) fails as the binding does on Cloudflare: `KV PUT failed: 429 Too Many
 *   Requests`. Deletes count as writes.
 * - **Limits.** Keys ≤ 512 bytes, values ≤ 25 MiB, metadata ≤ 1024 bytes of JSON,
 *   `expirationTtl` ≥ 60 s, `cacheTtl` ≥ 30 s, list `limit` ≤ 1000; expired keys read as missing.
 *
 * Time is the injected clock, never the wall clock, so lag is tested without sleeping.
 */
import type { KvListKey, KvNamespaceLike, KvPutOptions } from "../../src/worker/bindings.ts";

/** Options for {@link KvDouble}. */
export interface KvDoubleOptions {
  /** The test's clock, epoch ms. */
  readonly now: () => number;
  /** How long a write takes to reach other locations. Default 60 s (Cloudflare's figure). */
  readonly propagationMs?: number;
}

/** One committed write (a delete is a write of `null`). */
interface StoredWrite {
  readonly value: string | null;
  readonly metadata: unknown;
  /** Epoch ms when KV drops it; undefined for no expiry. */
  readonly expiresAt: number | undefined;
  readonly writtenAt: number;
  readonly location: string;
}

/** One write attempt, as the double saw it. */
export interface KvWriteAttempt {
  readonly location: string;
  readonly key: string;
  readonly at: number;
  readonly kind: "put" | "delete";
  /** False when Cloudflare would have refused it (rate limit or a bad argument). */
  readonly accepted: boolean;
}

const maxKeyBytes = 512;
const maxValueBytes = 25 * 1024 * 1024;
const maxMetadataBytes = 1024;
const encoder = new TextEncoder();

/** A KV namespace shared by any number of locations. */
export class KvDouble {
  readonly #options: KvDoubleOptions;
  /** Every write per key, oldest first. */
  readonly #writes = new Map<string, StoredWrite[]>();
  /** Every write attempt, in order. */
  readonly attempts: KvWriteAttempt[] = [];
  /** How many reads (get and getWithMetadata) each location made, by key. */
  readonly reads: { location: string; key: string }[] = [];

  constructor(options: KvDoubleOptions) {
    this.#options = options;
  }

  get propagationMs(): number {
    return this.#options.propagationMs ?? 60_000;
  }

  /** The namespace as seen by a Worker or Durable Object at `location`. */
  at(location: string): KvNamespaceLike {
    return {
      get: async (key, type) => {
        checkReadOptions(type);
        this.reads.push({ location, key });
        return this.#visible(location, key)?.value ?? null;
      },
      getWithMetadata: async <Metadata>(key: string, type: unknown) => {
        checkReadOptions(type);
        this.reads.push({ location, key });
        const write = this.#visible(location, key);
        return {
          value: write?.value ?? null,
          metadata: (write?.metadata ?? null) as Metadata | null,
        };
      },
      put: async (key, value, options) => this.#write(location, key, value, options),
      delete: async (key) => this.#write(location, key, null, undefined),
      list: async <Metadata>(options: { prefix: string; cursor?: string | null; limit?: number }) =>
        this.#list<Metadata>(location, options),
    };
  }

  /** The value a location reads now (for assertions; not counted as a read). */
  peek(location: string, key: string): string | null {
    return this.#visible(location, key)?.value ?? null;
  }

  /** Every value `key` ever held, oldest first (deletes as null). */
  history(key: string): (string | null)[] {
    return (this.#writes.get(key) ?? []).map((write) => write.value);
  }

  #now(): number {
    return this.#options.now();
  }

  /** The newest write of `key` that `location` can see now, if it holds a live value. */
  #visible(location: string, key: string): StoredWrite | undefined {
    const now = this.#now();
    const writes = this.#writes.get(key) ?? [];
    for (let index = writes.length - 1; index >= 0; index--) {
      const write = writes[index]!;
      const seen = write.location === location || now >= write.writtenAt + this.propagationMs;
      if (!seen) continue;
      if (write.value === null) return undefined;
      if (write.expiresAt !== undefined && write.expiresAt <= now) return undefined;
      return write;
    }
    return undefined;
  }

  async #write(
    location: string,
    key: string,
    value: string | null,
    options: KvPutOptions | undefined,
  ): Promise<void> {
    const now = this.#now();
    const kind = value === null ? "delete" : "put";
    const refuse = (message: string): never => {
      this.attempts.push({ location, key, at: now, kind, accepted: false });
      throw new Error(message);
    };
    if (key === "" || encoder.encode(key).byteLength > maxKeyBytes) {
      refuse(`KV ${kind.toUpperCase()} failed: 414 UTF-8 encoded length of key exceeds 512`);
    }
    if (value !== null && encoder.encode(value).byteLength > maxValueBytes) {
      refuse("KV PUT failed: 413 Value length exceeds 25 MiB");
    }
    if (options?.metadata !== undefined) {
      const bytes = encoder.encode(JSON.stringify(options.metadata)).byteLength;
      if (bytes > maxMetadataBytes) {
        refuse(`KV PUT failed: 413 Metadata length of ${bytes} exceeds limit of 1024`);
      }
    }
    const ttl = options?.expirationTtl;
    if (ttl !== undefined && !(Number.isFinite(ttl) && ttl >= 60)) {
      refuse(
        `KV PUT failed: 400 Invalid expiration_ttl of ${ttl}. Expiration TTL must be at least 60.`,
      );
    }
    const writes = this.#writes.get(key) ?? [];
    const last = writes.at(-1);
    if (last !== undefined && now - last.writtenAt < 1000) {
      refuse(`KV ${kind.toUpperCase()} failed: 429 Too Many Requests`);
    }
    writes.push({
      value,
      metadata: options?.metadata ?? null,
      expiresAt: ttl === undefined ? undefined : now + ttl * 1000,
      writtenAt: now,
      location,
    });
    this.#writes.set(key, writes);
    this.attempts.push({ location, key, at: now, kind, accepted: true });
  }

  async #list<Metadata>(
    location: string,
    options: { prefix: string; cursor?: string | null; limit?: number },
  ): Promise<
    { keys: KvListKey<Metadata>[] } & (
      | { list_complete: true }
      | { list_complete: false; cursor: string }
    )
  > {
    const limit = options.limit ?? 1000;
    if (!(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) {
      throw new Error(`KV LIST failed: 400 Invalid key_count_limit of ${limit}`);
    }
    const names = [...this.#writes.keys()]
      .filter((name) => name.startsWith(options.prefix))
      .filter((name) => this.#visible(location, name) !== undefined)
      .sort();
    const start = options.cursor ? Number(options.cursor) : 0;
    const page = names.slice(start, start + limit).map((name) => {
      const write = this.#visible(location, name)!;
      const entry: KvListKey<Metadata> = { name };
      if (write.expiresAt !== undefined) entry.expiration = Math.floor(write.expiresAt / 1000);
      if (write.metadata !== null) entry.metadata = write.metadata as Metadata;
      return entry;
    });
    const next = start + limit;
    return next < names.length
      ? { keys: page, list_complete: false, cursor: String(next) }
      : { keys: page, list_complete: true };
  }
}

function checkReadOptions(type: unknown): void {
  if (typeof type === "object" && type !== null && "cacheTtl" in type) {
    const cacheTtl = (type as { cacheTtl?: unknown }).cacheTtl;
    if (cacheTtl !== undefined && !(typeof cacheTtl === "number" && cacheTtl >= 30)) {
      throw new Error(`KV GET failed: 400 Invalid cache_ttl of ${String(cacheTtl)}`);
    }
  }
}
