/**
 * @module
 * `KeyStore`: provider keys in Workers KV, one KV key per version plus a `current` pointer per
 * provider (layout in `key-layout.ts`). Built per request from the binding:
 * `new KeyStore(env.KEYS, { now })`.
 *
 * Designed for KV's eventual consistency (a write can take 60 s or more to reach other
 * locations, and KV has no compare-and-swap):
 *
 * - **No moment without a usable key.** A rotation writes the new version's KV key first and
 *   moves the pointer second. Until the pointer moves, readers use the old version; once it has
 *   moved, a reader that cannot see the new version yet (another location) falls back to the
 *   pointer's `previous` version during `graceSeconds`. The old version is not deleted: it is
 *   rewritten with a KV `expirationTtl` of the history window, so it stays readable that long.
 * - **Concurrent rotations lose nothing.** Every rotation writes its own KV key, named by a
 *   version id that is unique without coordination (the time in ms and a random part), and never
 *   rewrites a shared collection, so no read-modify-write can drop a version: listing
 *   `key:{provider}:` always reconstructs the whole history. The only shared KV key is the
 *   pointer, and it is written whole (last writer wins), always naming a version whose KV key was
 *   written before it, so it can never point at nothing. A version that lost the pointer race is
 *   simply history; the cron sweep gives it an expiry like any other retired version.
 */
import { StepwiseError } from "../errors/index.ts";
import type { KvNamespaceLike } from "./bindings.ts";
import { fingerprint, randomHex } from "./crypto.ts";
import {
  type CurrentPointer,
  isExpired,
  keyLayout,
  makeVersion,
  minimumKvTtlSeconds,
  type StoredKeyMetadata,
  versionPattern,
} from "./key-layout.ts";
import { revokeKey, rollbackKey } from "./key-lifecycle.ts";
import { getJson } from "./kv-list.ts";

/** Options for {@link KeyStore}. Times are read from `now` at call time. */
export interface KeyStoreOptions {
  /** Epoch ms; `Date.now` by default. */
  readonly now?: () => number;
  /** Random part of version ids (lowercase letters and digits); 8 random hex digits by default. */
  readonly generateId?: () => string;
  /** How long after a switch readers may still use the previous version. Default 60. */
  readonly graceSeconds?: number;
  /** How long retired versions stay in history. Default 24 h. */
  readonly historySeconds?: number;
}

/** What a rotation stores. */
export interface RotateInput {
  readonly key: string;
  /** Epoch ms when the provider stops accepting the key. */
  readonly expiresAt?: number | null;
  readonly label: string;
}

/** A key the proxy may use, with the version it came from. */
export interface UsableKey {
  readonly key: string;
  readonly version: string;
  /** `previous` when the current version was not readable and the grace window allowed it. */
  readonly source: "current" | "previous";
}

/** Stored key versions per provider, with a current pointer. */
export class KeyStore {
  readonly #kv: KvNamespaceLike;
  readonly #options: KeyStoreOptions;

  constructor(kv: KvNamespaceLike, options: KeyStoreOptions = {}) {
    this.#kv = kv;
    this.#options = options;
  }

  /** Current time in epoch ms. */
  now(): number {
    return (this.#options.now ?? Date.now)();
  }

  get historySeconds(): number {
    return Math.max(minimumKvTtlSeconds, this.#options.historySeconds ?? 24 * 3600);
  }

  /** Writes a new version and makes it current. Returns its metadata (never the key). */
  async rotate(provider: string, input: RotateInput): Promise<StoredKeyMetadata> {
    const now = this.now();
    const randomPart = (this.#options.generateId ?? (() => randomHex(8)))();
    const version = makeVersion(now, randomPart);
    if (!versionPattern.test(version)) {
      throw new StepwiseError({
        code: "invalid_option",
        message: `generateId returned "${randomPart}": it must return 1 to 32 lowercase letters and digits`,
      });
    }
    const metadata: StoredKeyMetadata = {
      provider,
      version,
      rotatedAt: now,
      expiresAt: input.expiresAt ?? null,
      fingerprint: await fingerprint(input.key),
      label: input.label,
      retiredAt: null,
      revokedAt: null,
    };
    // 1. The version's own KV key: nobody else ever writes it.
    await this.#kv.put(keyLayout.version(provider, version), input.key, { metadata });
    // 2. The pointer, whole. Readers switch here; `previous` covers locations that lag.
    const before = await this.pointer(provider);
    await this.setPointer(provider, {
      version,
      previous: before?.version ?? null,
      switchedAt: now,
    });
    // 3. The old current becomes history with an expiry. Not deleted: still the grace fallback.
    if (before !== undefined && before.version !== version) {
      await this.retire(provider, before.version);
    }
    return metadata;
  }

  /** The key the proxy should send for a provider, if any version is usable now. */
  async usableKey(provider: string): Promise<UsableKey | undefined> {
    const pointer = await this.pointer(provider);
    if (pointer === undefined) return undefined;
    const now = this.now();
    const current = await this.usableValue(provider, pointer.version, now);
    if (current !== undefined) return { key: current, version: pointer.version, source: "current" };
    const graceMs = (this.#options.graceSeconds ?? 60) * 1000;
    if (pointer.previous === null || now - pointer.switchedAt >= graceMs) return undefined;
    const previous = await this.usableValue(provider, pointer.previous, now);
    return previous === undefined
      ? undefined
      : { key: previous, version: pointer.previous, source: "previous" };
  }

  /** The `current:{provider}` pointer, if a key was ever rotated in. */
  pointer(provider: string): Promise<CurrentPointer | undefined> {
    return getJson<CurrentPointer>(this.#kv, keyLayout.current(provider));
  }

  /** One version's metadata, if it is still stored. */
  async metadata(provider: string, version: string): Promise<StoredKeyMetadata | undefined> {
    const stored = await this.#read(provider, version);
    return stored.metadata ?? undefined;
  }

  /**
   * Makes an older version current again: `toVersion`, or the pointer's previous version. The
   * version that was current becomes the previous one, so a second rollback undoes the first.
   * @throws {WorkerError} 409 when there is nothing to roll back to, 404 for an unknown version.
   */
  rollback(provider: string, toVersion?: string): Promise<StoredKeyMetadata> {
    return rollbackKey(this, provider, toVersion);
  }

  /**
   * Revokes one version: its value is erased at once and its metadata kept as history. Revoking
   * the current version moves the pointer to the previous version when that one is usable; with
   * none, it needs `force` and leaves the provider without a key.
   * @throws {WorkerError} 404 for an unknown version, 409 when current has no fallback.
   */
  revoke(
    provider: string,
    version: string,
    options: { force?: boolean } = {},
  ): Promise<StoredKeyMetadata> {
    return revokeKey(this, provider, version, options);
  }

  /** Writes the `current:{provider}` pointer whole; `undefined` deletes it. */
  async setPointer(provider: string, pointer: CurrentPointer | undefined): Promise<void> {
    if (pointer === undefined) await this.#kv.delete(keyLayout.current(provider));
    else await this.#kv.put(keyLayout.current(provider), JSON.stringify(pointer));
  }

  /** Erases a version's value and keeps its metadata, marked revoked, for the history window. */
  async erase(provider: string, metadata: StoredKeyMetadata): Promise<void> {
    await this.#kv.put(keyLayout.version(provider, metadata.version), "", {
      metadata,
      expirationTtl: this.historySeconds,
    });
  }

  /**
   * Marks a version as history: rewrites it with `retiredAt` and a KV expiry at the end of the
   * history window (at least KV's 60 s minimum). Idempotent; revoked versions are left alone.
   */
  async retire(provider: string, version: string): Promise<void> {
    const stored = await this.#read(provider, version);
    if (stored.value === null || stored.metadata === null || stored.metadata.revokedAt !== null) {
      return;
    }
    const retiredAt = stored.metadata.retiredAt ?? this.now();
    const remaining = Math.ceil((retiredAt + this.historySeconds * 1000 - this.now()) / 1000);
    await this.#kv.put(keyLayout.version(provider, version), stored.value, {
      metadata: { ...stored.metadata, retiredAt },
      expirationTtl: Math.max(minimumKvTtlSeconds, remaining),
    });
  }

  /**
   * Rewrites a version without a KV expiry and without `retiredAt`, because it is (or is about
   * to be) current again. Returns its metadata; undefined when it is gone or revoked.
   */
  async restore(provider: string, version: string): Promise<StoredKeyMetadata | undefined> {
    const stored = await this.#read(provider, version);
    if (stored.value === null || stored.metadata === null || stored.metadata.revokedAt !== null) {
      return undefined;
    }
    const metadata: StoredKeyMetadata = { ...stored.metadata, retiredAt: null };
    await this.#kv.put(keyLayout.version(provider, version), stored.value, { metadata });
    return metadata;
  }

  /** Deletes a version's KV key outright (the sweep, once history has run out). */
  async remove(provider: string, version: string): Promise<void> {
    await this.#kv.delete(keyLayout.version(provider, version));
  }

  /** A version's value and metadata; `value` is null once revoked (erased) or gone. */
  async #read(
    provider: string,
    version: string,
  ): Promise<{ value: string | null; metadata: StoredKeyMetadata | null }> {
    const stored = await this.#kv.getWithMetadata<StoredKeyMetadata>(
      keyLayout.version(provider, version),
      "text",
    );
    return { value: stored.value === "" ? null : stored.value, metadata: stored.metadata };
  }

  /** A version's key if it may be used at `now`: stored, not revoked, not expired. */
  async usableValue(provider: string, version: string, now: number): Promise<string | undefined> {
    const stored = await this.#read(provider, version);
    if (stored.value === null) return undefined;
    const metadata = stored.metadata;
    if (metadata !== null && (metadata.revokedAt !== null || isExpired(metadata, now))) {
      return undefined;
    }
    return stored.value;
  }
}
