/**
 * @module
 * The values the ledger no longer uses but the proxy must still scrub. AI Gateway may replay a
 * cached answer for up to 30 days (`cf-aig-cache-ttl`, which an app may send, goes to 2,592,000 s),
 * and an answer cached while a key was in use can carry it (an upstream that echoes the key). So
 * when the ledger erases a value (a revocation, a key taken out of the pool) or the sweep deletes
 * a version that still had one, the value is kept as a {@link RememberedSecret} until the
 * longest cache TTL has passed since the version ended; the edge record of the provider lists it
 * with every other value the ledger holds (`kv-edge-target.ts`), for the scrubber only, and the
 * sweep forgets it after that.
 */
import {
  type LedgerStorage,
  type LedgerVersion,
  ledgerKeys,
  type RememberedSecret,
} from "./ledger-storage.ts";

/** Cloudflare's longest cache TTL: how long a cached answer can carry a value after its use. */
export const cacheLifetimeMs = 2_592_000 * 1000;

/**
 * The records that remember the values `versions` erase (a stored version that had a value and
 * is rewritten with none): each until the longest cache TTL after its end.
 */
export async function rememberErased(
  storage: LedgerStorage,
  provider: string,
  name: string,
  versions: readonly LedgerVersion[],
  now: number,
): Promise<Record<string, RememberedSecret>> {
  const puts: Record<string, RememberedSecret> = {};
  for (const next of versions) {
    if (next.key !== null) continue;
    const { version } = next.metadata;
    const stored = await storage.get<LedgerVersion>(ledgerKeys.version(provider, name, version));
    if (stored === undefined || stored.key === null) continue;
    const endedAt = next.metadata.revokedAt ?? next.metadata.retiredAt ?? now;
    puts[ledgerKeys.remembered(provider, name, version)] = {
      key: stored.key,
      forgetAt: endedAt + cacheLifetimeMs,
    };
  }
  return puts;
}

/** The records that remember the values of versions the sweep deletes. */
export async function rememberSwept(
  storage: LedgerStorage,
  provider: string,
  name: string,
  versions: readonly string[],
  now: number,
): Promise<Record<string, RememberedSecret>> {
  const puts: Record<string, RememberedSecret> = {};
  for (const version of versions) {
    const stored = await storage.get<LedgerVersion>(ledgerKeys.version(provider, name, version));
    if (stored === undefined || stored.key === null) continue;
    const endedAt = stored.metadata.revokedAt ?? stored.metadata.retiredAt ?? now;
    puts[ledgerKeys.remembered(provider, name, version)] = {
      key: stored.key,
      forgetAt: endedAt + cacheLifetimeMs,
    };
  }
  return puts;
}

/** The remembered values no cached answer can hold any more, by provider: their storage keys. */
export async function forgettable(
  storage: LedgerStorage,
  now: number,
): Promise<Map<string, string[]>> {
  const remembered = await storage.list<RememberedSecret>({
    prefix: ledgerKeys.rememberedPrefix(),
  });
  const due = new Map<string, string[]>();
  for (const [storageKey, stored] of remembered) {
    if (stored.forgetAt > now) continue;
    const provider = storageKey.split(":")[1] ?? "";
    due.set(provider, [...(due.get(provider) ?? []), storageKey]);
  }
  return due;
}
