/**
 * @module
 * What `KeyLedgerCore` reads back from its storage: a provider's pool as its answers show it (each
 * key's pointer and versions, `default` first, and the edge writes still owed), the providers it
 * holds, and the truth of one pool key that a lifecycle plan (`lifecycle.ts`) decides from. Reads
 * only: the ledger's operations write through `ledger-commit.ts`.
 */
import { defaultKeyName } from "../key-layout.ts";
import type { LedgerPointer, PoolKeyState, ProviderState } from "./ledger-api.ts";
import {
  type LedgerStorage,
  type LedgerVersion,
  ledgerKeys,
  parsePointerKey,
  storageReader,
} from "./ledger-storage.ts";
import type { ProviderTruth } from "./lifecycle.ts";
import type { Outbox } from "./write-through.ts";

/** The stored truth of one pool key: its pointer, and a reader of its versions. */
export async function keyTruth(
  storage: LedgerStorage,
  provider: string,
  name: string,
): Promise<ProviderTruth> {
  const reader = storageReader(storage);
  return {
    provider,
    name,
    pointer: await reader.pointer(provider, name),
    version: (version) => reader.version(provider, name, version),
  };
}

/** The providers that have a pool, sorted. */
export async function providerNames(storage: LedgerStorage): Promise<string[]> {
  const pointers = await storage.list({ prefix: ledgerKeys.pointerPrefix() });
  const names = new Set(
    [...pointers.keys()].map((key) => parsePointerKey(key)?.provider ?? "").filter(Boolean),
  );
  return [...names].sort();
}

/** `provider`'s pool: its keys (`default` first, then by name) and the writes still owed. */
export async function providerState(
  storage: LedgerStorage,
  outbox: Outbox,
  provider: string,
): Promise<ProviderState> {
  const names = await storageReader(storage).poolNames(provider);
  const keys = await Promise.all(names.map((name) => keyState(storage, provider, name)));
  return {
    provider,
    keys: keys.sort((a, b) =>
      a.name === defaultKeyName ? -1 : b.name === defaultKeyName ? 1 : a.name.localeCompare(b.name),
    ),
    pending: await outbox.pendingFor(provider),
  };
}

/** One pool key: its pointer and its versions' metadata, oldest version first. */
async function keyState(
  storage: LedgerStorage,
  provider: string,
  name: string,
): Promise<PoolKeyState> {
  const [pointer, versions] = await Promise.all([
    storage.get<LedgerPointer>(ledgerKeys.pointer(provider, name)),
    storage.list<LedgerVersion>({ prefix: ledgerKeys.versionPrefix(provider, name) }),
  ]);
  return {
    name,
    pointer: pointer ?? null,
    versions: [...versions.values()]
      .map((stored) => stored.metadata)
      .sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0)),
  };
}
