/**
 * @module
 * The gateway's response cache: successful (2xx), non-streamed upstream responses stored under a
 * key for a TTL measured by the injected clock. Memory is bounded by entry count and total
 * bytes; the least recently used entries go first.
 *
 * Key (emulator choice; Cloudflare does not document it): SHA-256 of gateway, provider, method,
 * endpoint path and request body, or of gateway and the caller's `cf-aig-cache-key`.
 */
import { createHash } from "node:crypto";

/** A stored response. */
export interface CachedResponse {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
  readonly provider: string;
  readonly model: string;
  readonly tokensIn: number | null;
  readonly tokensOut: number | null;
  /** Epoch ms after which the entry is gone. */
  readonly expiresAt: number;
}

export interface CacheKeyInput {
  readonly gatewayId: string;
  readonly provider: string;
  readonly method: string;
  readonly path: string;
  readonly body: Buffer | undefined;
  /** `cf-aig-cache-key`: replaces the computed key. */
  readonly customKey?: string;
}

/** The cache key for a request. Keys of one gateway share a prefix so they can be purged. */
export function cacheKey(input: CacheKeyInput): string {
  const hash = createHash("sha256");
  if (input.customKey !== undefined) {
    hash.update(`custom\0${input.customKey}`);
  } else {
    hash.update(`${input.provider}\0${input.method.toUpperCase()}\0${input.path}\0`);
    if (input.body !== undefined) hash.update(input.body);
  }
  return `${input.gatewayId}\0${hash.digest("hex")}`;
}

export interface ResponseCacheOptions {
  /** Most entries kept; default 1000. */
  readonly maxEntries?: number;
  /** Most body bytes kept in total; default 64 MiB. */
  readonly maxBytes?: number;
}

export class ResponseCache {
  readonly #entries = new Map<string, CachedResponse>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(options: ResponseCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  /** The live entry for a key, or undefined (expired entries are dropped). */
  get(key: string, now: number): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= now) {
      this.#bytes -= entry.body.length;
      return undefined;
    }
    this.#entries.set(key, entry); // most recently used goes last
    return entry;
  }

  /** Stores an entry; one larger than the whole budget is not stored. */
  set(key: string, entry: CachedResponse): void {
    if (entry.body.length > this.#maxBytes) return;
    this.#drop(key);
    this.#entries.set(key, entry);
    this.#bytes += entry.body.length;
    while (this.#entries.size > this.#maxEntries || this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#drop(oldest);
    }
  }

  /** Drops every entry of a gateway. */
  purgeGateway(gatewayId: string): void {
    const prefix = `${gatewayId}\0`;
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#drop(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.body.length;
  }
}
