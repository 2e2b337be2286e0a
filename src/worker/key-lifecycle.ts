/**
 * @module
 * Rollback and revocation, built on `KeyStore`'s primitives. Both follow the store's rule for
 * KV's eventual consistency: a version that becomes current is rewritten without an expiry
 * before the pointer moves to it, and the pointer is always written whole.
 */
import { WorkerError } from "./errors.ts";
import { isExpired, type StoredKeyMetadata } from "./key-layout.ts";
import type { KeyStore } from "./key-store.ts";

/** See {@link KeyStore.rollback}. */
export async function rollbackKey(
  store: KeyStore,
  provider: string,
  toVersion?: string,
): Promise<StoredKeyMetadata> {
  const pointer = await store.pointer(provider);
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
  const now = store.now();
  const stored = await store.metadata(provider, target);
  if (stored !== undefined && stored.revokedAt === null && isExpired(stored, now)) {
    throw new WorkerError({
      status: 409,
      code: "key_expired",
      message: `${provider} version ${target} expired at ${new Date(stored.expiresAt ?? 0).toISOString()}; rotate a new key in instead.`,
    });
  }
  // The target must not expire while it is current: rewrite it without a TTL first.
  const restored = await store.restore(provider, target);
  if (restored === undefined) throw unknownVersion(provider, target);
  await store.setPointer(provider, { version: target, previous: pointer.version, switchedAt: now });
  await store.retire(provider, pointer.version);
  return restored;
}

/** See {@link KeyStore.revoke}. */
export async function revokeKey(
  store: KeyStore,
  provider: string,
  version: string,
  options: { force?: boolean },
): Promise<StoredKeyMetadata> {
  const now = store.now();
  const metadata = await store.metadata(provider, version);
  if (metadata === undefined || metadata.revokedAt !== null) {
    throw unknownVersion(provider, version);
  }
  const pointer = await store.pointer(provider);
  if (pointer?.version === version) {
    const fallback =
      pointer.previous === null
        ? undefined
        : await store.usableValue(provider, pointer.previous, now);
    if (fallback !== undefined && pointer.previous !== null) {
      await store.restore(provider, pointer.previous);
      await store.setPointer(provider, {
        version: pointer.previous,
        previous: null,
        switchedAt: now,
      });
    } else if (options.force === true) {
      await store.setPointer(provider, undefined);
    } else {
      throw new WorkerError({
        status: 409,
        code: "no_fallback_key",
        message: `${version} is the only usable ${provider} key; rotate a new key in first, or add ?force=true to leave ${provider} without a key.`,
      });
    }
  } else if (pointer?.previous === version) {
    await store.setPointer(provider, { ...pointer, previous: null });
  }
  const revoked: StoredKeyMetadata = {
    ...metadata,
    revokedAt: now,
    retiredAt: metadata.retiredAt ?? now,
  };
  await store.erase(provider, revoked);
  return revoked;
}

function unknownVersion(provider: string, version: string): WorkerError {
  return new WorkerError({
    status: 404,
    code: "unknown_version",
    message: `${provider} has no usable version ${version}; list versions with GET /keys/${provider}.`,
  });
}
