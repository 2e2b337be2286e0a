/**
 * @module
 * Moves a ledger written before key pools (layout 1: `pointer:{provider}`,
 * `version:{provider}:{version}`) to layout 2, where each provider's existing key becomes the
 * `default` key of its pool (`pointer:{provider}:default`, `version:{provider}:default:{version}`).
 * Runs once, before the ledger's first operation; a ledger already at layout 2 (or a new one) is
 * only marked. The KV record `current:{provider}` written before pools is still read by the proxy
 * (as a pool of one), and the next change to the provider rewrites it in the pool form.
 */
import { defaultKeyName, type StoredKeyMetadata } from "../key-layout.ts";
import {
  currentLayout,
  type LedgerStorage,
  type LedgerVersion,
  ledgerKeys,
} from "./ledger-storage.ts";

const batch = 64;

/** Brings the storage to the current layout. */
export async function migrateLayout(storage: LedgerStorage): Promise<void> {
  const layout = (await storage.get<number>(ledgerKeys.layout)) ?? 1;
  if (layout >= currentLayout) return;
  const puts: Record<string, unknown> = {};
  const deletes: string[] = [];
  const pointers = await storage.list<unknown>({ prefix: ledgerKeys.pointerPrefix() });
  for (const [key, pointer] of pointers) {
    const parts = key.split(":");
    if (parts.length !== 2) continue;
    puts[ledgerKeys.pointer(parts[1]!, defaultKeyName)] = pointer;
    deletes.push(key);
  }
  const versions = await storage.list<LedgerVersion>({ prefix: "version:" });
  for (const [key, stored] of versions) {
    const parts = key.split(":");
    if (parts.length !== 3) continue;
    const metadata: StoredKeyMetadata = { ...stored.metadata, name: defaultKeyName };
    puts[ledgerKeys.version(parts[1]!, defaultKeyName, parts[2]!)] = { ...stored, metadata };
    deletes.push(key);
  }
  // Written in batches (128 keys per call at most); the old keys go only after every new one is
  // in, so an interrupted migration is simply run again.
  const entries = Object.entries(puts);
  for (let start = 0; start < entries.length; start += batch) {
    await storage.put(Object.fromEntries(entries.slice(start, start + batch)));
  }
  for (let start = 0; start < deletes.length; start += batch) {
    await storage.delete(deletes.slice(start, start + batch));
  }
  await storage.put({ [ledgerKeys.layout]: currentLayout });
}
