/**
 * @module
 * The write-through target that keeps Workers KV (the proxy's edge read path) in line with the
 * ledger: `current:{provider}` holds the provider's pool, every key of it that has a current
 * version the proxy may inject, and every other value of its keys the ledger still knows
 * (previous, history, revoked and remembered ones, `remembered-secrets.ts`), which the proxy
 * scrubs from answers and never injects (deleted when there is neither), `app:{id}` an app's token digest and
 * limit (deleted when revoked). Every value is built from the ledger's truth; nothing here reads
 * KV.
 */
import type { KvNamespaceLike } from "../bindings.ts";
import { type EdgePoolKey, type EdgePoolRecord, keyLayout } from "../key-layout.ts";
import type { LedgerReader } from "./ledger-storage.ts";
import type { LedgerChange, WriteThroughTarget } from "./write-through.ts";

/** KV takes one write per second per key: a refused write is retried a second later. */
const kvWriteIntervalMs = 1000;
/** Cloudflare: a write reaches every location within about 60 s. */
export const kvPropagationMs = 60_000;

/** The KV target for the namespace bound as `KEYS`. */
export function kvEdgeTarget(kv: KvNamespaceLike): WriteThroughTarget {
  return {
    name: "kv",
    retryAfterMs: kvWriteIntervalMs,
    propagationMs: kvPropagationMs,
    entriesFor(change: LedgerChange): readonly string[] {
      return change.kind === "app"
        ? [keyLayout.app(change.id)]
        : [keyLayout.current(change.provider)];
    },
    async apply(entry: string, truth: LedgerReader): Promise<void> {
      const value = await edgeValue(entry, truth);
      if (value === null) await kv.delete(entry);
      else await kv.put(entry, value);
    },
  };
}

/** The value an edge entry must hold now; null when it must not exist. */
async function edgeValue(entry: string, truth: LedgerReader): Promise<string | null> {
  const separator = entry.indexOf(":");
  const kind = entry.slice(0, separator);
  const name = entry.slice(separator + 1);
  if (kind === "app") {
    const app = await truth.app(name);
    return app === undefined ? null : JSON.stringify(app);
  }
  if (kind !== "current") throw new Error(`unknown KV entry kind ${kind}`);
  const keys: EdgePoolKey[] = [];
  for (const keyName of await truth.poolNames(name)) {
    const key = await currentKey(truth, name, keyName);
    if (key !== undefined) keys.push(key);
  }
  const injected = new Set(keys.map((key) => key.key));
  const retired = (await truth.heldValues(name)).filter((value) => !injected.has(value));
  if (keys.length === 0 && retired.length === 0) return null;
  const record: EdgePoolRecord = retired.length === 0 ? { keys } : { keys, retired };
  return JSON.stringify(record);
}

/** The version of one pool key the proxy may inject, with its value; undefined when none. */
export async function currentKey(
  truth: LedgerReader,
  provider: string,
  name: string,
): Promise<EdgePoolKey | undefined> {
  const pointer = await truth.pointer(provider, name);
  if (pointer?.current == null) return undefined;
  const stored = await truth.version(provider, name, pointer.current);
  if (stored === undefined || stored.key === null || stored.metadata.revokedAt !== null) {
    return undefined;
  }
  return {
    name,
    version: pointer.current,
    key: stored.key,
    expiresAt: stored.metadata.expiresAt,
    switchedAt: pointer.switchedAt,
  };
}
