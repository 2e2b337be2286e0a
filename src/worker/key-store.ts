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
import { WorkerError } from "./errors.ts";
import {
  type CurrentPointer,
  keyLayout,
  makeVersion,
  minimumKvTtlSeconds,
  type StoredKeyMetadata,
  versionPattern,
} from "./key-layout.ts";
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
    await this.#writePointer(provider, {
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
    const current = await this.#readUsable(provider, pointer.version, now);
    if (current !== undefined) return { key: current, version: pointer.version, source: "current" };
    const graceMs = (this.#options.graceSeconds ?? 60) * 1000;
    if (pointer.previous === null || now - pointer.switchedAt >= graceMs) return undefined;
    const previous = await this.#readUsable(provider, pointer.previous, now);
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
    const stored = await this.#kv.getWithMetadata<StoredKeyMetadata>(
      keyLayout.version(provider, version),
      "text",
    );
    return stored.metadata ?? undefined;
  }

  /**
   * Makes an older version current again: `toVersion`, or the pointer's previous version. The
   * version that was current becomes the previous one, so a second rollback undoes the first.
   * @throws {WorkerError} 409 when there is nothing to roll back to, 404 for an unknown version.
   */
  async rollback(provider: string, toVersion?: string): Promise<StoredKeyMetadata> {
    const pointer = await this.pointer(provider);
    if (pointer === undefined) {
      throw new WorkerError({
        status: 409,
        code: "no_current_key",
        message: `No key was ever stored for ${provider}: rotate one in first.`,
      });
    }
    const target = toVersion ?? pointer.previous;
    if (target === null || target === pointer.version) {
      throw new WorkerError({
        status: 409,
        code: "no_previous_version",
        message: `${provider} has no previous version to roll back to; name one with { "version": "…" } (see GET /keys/${provider}).`,
      });
    }
    const now = this.now();
    const stored = await this.#kv.getWithMetadata<StoredKeyMetadata>(
      keyLayout.version(provider, target),
      "text",
    );
    if (!stored.value || stored.metadata === null || stored.metadata.revokedAt !== null) {
      throw unknownVersion(provider, target);
    }
    if (isExpired(stored.metadata, now)) {
      throw new WorkerError({
        status: 409,
        code: "key_expired",
        message: `${provider} version ${target} expired at ${new Date(stored.metadata.expiresAt ?? 0).toISOString()}; rotate a new key in instead.`,
      });
    }
    // The target must not expire while it is current: rewrite it without a TTL first.
    const restored: StoredKeyMetadata = { ...stored.metadata, retiredAt: null };
    await this.#kv.put(keyLayout.version(provider, target), stored.value, { metadata: restored });
    await this.#writePointer(provider, {
      version: target,
      previous: pointer.version,
      switchedAt: now,
    });
    await this.retire(provider, pointer.version);
    return restored;
  }

  /**
   * Revokes one version: its value is erased at once and its metadata kept as history. Revoking
   * the current version moves the pointer to the previous version when that one is usable; with
   * none, it needs `force` and leaves the provider without a key.
   * @throws {WorkerError} 404 for an unknown version, 409 when current has no fallback.
   */
  async revoke(
    provider: string,
    version: string,
    options: { force?: boolean } = {},
  ): Promise<StoredKeyMetadata> {
    const now = this.now();
    const metadata = await this.metadata(provider, version);
    if (metadata === undefined || metadata.revokedAt !== null) {
      throw unknownVersion(provider, version);
    }
    const pointer = await this.pointer(provider);
    if (pointer?.version === version) {
      const fallback =
        pointer.previous === null
          ? undefined
          : await this.#readUsable(provider, pointer.previous, now);
      if (fallback !== undefined && pointer.previous !== null) {
        const previous = await this.metadata(provider, pointer.previous);
        if (previous !== undefined) {
          await this.#kv.put(keyLayout.version(provider, pointer.previous), fallback, {
            metadata: { ...previous, retiredAt: null },
          });
        }
        await this.#writePointer(provider, {
          version: pointer.previous,
          previous: null,
          switchedAt: now,
        });
      } else if (options.force === true) {
        await this.#kv.delete(keyLayout.current(provider));
      } else {
        throw new WorkerError({
          status: 409,
          code: "no_fallback_key",
          message: `${version} is the only usable ${provider} key; rotate a new key in first, or add ?force=true to leave ${provider} without a key.`,
        });
      }
    } else if (pointer?.previous === version) {
      await this.#writePointer(provider, { ...pointer, previous: null });
    }
    const revoked: StoredKeyMetadata = {
      ...metadata,
      revokedAt: now,
      retiredAt: metadata.retiredAt ?? now,
    };
    await this.#kv.put(keyLayout.version(provider, version), "", {
      metadata: revoked,
      expirationTtl: this.historySeconds,
    });
    return revoked;
  }

  /**
   * Marks a version as history: rewrites it with `retiredAt` and a KV expiry at the end of the
   * history window (at least KV's 60 s minimum). Idempotent; revoked versions are left alone.
   */
  async retire(provider: string, version: string): Promise<void> {
    const stored = await this.#kv.getWithMetadata<StoredKeyMetadata>(
      keyLayout.version(provider, version),
      "text",
    );
    if (!stored.value || stored.metadata === null || stored.metadata.revokedAt !== null) return;
    const retiredAt = stored.metadata.retiredAt ?? this.now();
    const remaining = Math.ceil((retiredAt + this.historySeconds * 1000 - this.now()) / 1000);
    await this.#kv.put(keyLayout.version(provider, version), stored.value, {
      metadata: { ...stored.metadata, retiredAt },
      expirationTtl: Math.max(minimumKvTtlSeconds, remaining),
    });
  }

  /** Deletes a version's KV key outright (the sweep, once history has run out). */
  async remove(provider: string, version: string): Promise<void> {
    await this.#kv.delete(keyLayout.version(provider, version));
  }

  async #writePointer(provider: string, pointer: CurrentPointer): Promise<void> {
    await this.#kv.put(keyLayout.current(provider), JSON.stringify(pointer));
  }

  async #readUsable(provider: string, version: string, now: number): Promise<string | undefined> {
    const stored = await this.#kv.getWithMetadata<StoredKeyMetadata>(
      keyLayout.version(provider, version),
      "text",
    );
    if (stored.value === null || stored.value === "") return undefined;
    const metadata = stored.metadata;
    if (metadata !== null && (metadata.revokedAt !== null || isExpired(metadata, now))) {
      return undefined;
    }
    return stored.value;
  }
}

/** True once a key's own `expiresAt` has passed. */
export function isExpired(metadata: StoredKeyMetadata, now: number): boolean {
  return metadata.expiresAt !== null && metadata.expiresAt <= now;
}

function unknownVersion(provider: string, version: string): WorkerError {
  return new WorkerError({
    status: 404,
    code: "unknown_version",
    message: `${provider} has no usable version ${version}; list versions with GET /keys/${provider}.`,
  });
}
