/**
 * @module
 * The cron's clean-up of one provider's history. By the injected clock it deletes retired and
 * revoked versions whose history window has run out (KV's own TTL does the same on real time),
 * gives an expiry to versions that stopped being current without one (the loser of a concurrent
 * rotation race), and makes sure the current version never carries an expiry.
 */
import type { KvNamespaceLike } from "./bindings.ts";
import { keyLayout, type StoredKeyMetadata } from "./key-layout.ts";
import type { KeyStore } from "./key-store.ts";
import { listAll } from "./kv-list.ts";

/** What one sweep did, by version id. */
export interface SweepResult {
  readonly provider: string;
  /** Deleted: history past its window. */
  readonly removed: string[];
  /** Given a history expiry: no longer current, had none. */
  readonly retired: string[];
  /** The current version, rewritten without an expiry. */
  readonly kept: string[];
}

/** Sweeps one provider's versions. */
export async function sweepProvider(
  kv: KvNamespaceLike,
  store: KeyStore,
  provider: string,
): Promise<SweepResult> {
  const result: SweepResult = { provider, removed: [], retired: [], kept: [] };
  const [listed, pointer] = await Promise.all([
    listAll<StoredKeyMetadata>(kv, keyLayout.versionPrefix(provider)),
    store.pointer(provider),
  ]);
  const now = store.now();
  const historyMs = store.historySeconds * 1000;
  for (const entry of listed) {
    const metadata = entry.metadata;
    if (metadata === undefined || metadata === null) continue;
    const { version } = metadata;
    if (version === pointer?.version && metadata.revokedAt === null) {
      if (entry.expiration !== undefined || metadata.retiredAt !== null) {
        if ((await store.restore(provider, version)) !== undefined) result.kept.push(version);
      }
      continue;
    }
    const endedAt = metadata.revokedAt ?? metadata.retiredAt;
    if (endedAt === null) {
      if (version !== pointer?.previous) {
        await store.retire(provider, version);
        result.retired.push(version);
      }
      continue;
    }
    if (now - endedAt >= historyMs) {
      await store.remove(provider, version);
      result.removed.push(version);
    }
  }
  return result;
}
