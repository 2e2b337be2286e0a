/**
 * @module
 * The cron's history sweep carried out on the ledger (`KeyLedgerCore.sweep`, inside its queue):
 * for each pool key, the versions `history-sweep.ts` picks are deleted and the pointer's
 * `previous` updated under a new revision (a named key left with no version leaves the pool); a
 * swept value is remembered while a cached answer may hold it (`remembered-secrets.ts`), and the
 * values no cached answer can hold any more leave the edge records too.
 */
import { defaultKeyName } from "../key-layout.ts";
import { planKeySweep } from "./history-sweep.ts";
import type { ProviderState, SweepResult } from "./ledger-api.ts";
import type { LedgerCommitter } from "./ledger-commit.ts";
import { type LedgerStorage, ledgerKeys } from "./ledger-storage.ts";
import { forgettable, rememberSwept } from "./remembered-secrets.ts";

/** Sweeps the pools `states` at `now`, keeping `historySeconds` of history; what each key lost. */
export async function sweepHistory(
  storage: LedgerStorage,
  committer: LedgerCommitter,
  states: readonly ProviderState[],
  now: number,
  historySeconds: number,
): Promise<SweepResult[]> {
  const results: SweepResult[] = [];
  for (const state of states) {
    for (const key of state.keys) {
      const { removed, emptied, previous } = planKeySweep(key, now, historySeconds);
      results.push({ provider: state.provider, name: key.name, removed });
      if (removed.length === 0 || key.pointer === null) continue;
      const deletes = removed.map((version) =>
        ledgerKeys.version(state.provider, key.name, version),
      );
      // A value still in a swept version may be in a cached answer: it is remembered.
      const remembered = await rememberSwept(storage, state.provider, key.name, removed, now);
      if (emptied && key.name !== defaultKeyName) {
        // A key taken out of the pool leaves no trace once its history has expired.
        await committer.write(remembered, [
          ...deletes,
          ledgerKeys.pointer(state.provider, key.name),
        ]);
        continue;
      }
      const revision = (await committer.revision()) + 1;
      await committer.write(
        {
          ...remembered,
          [ledgerKeys.pointer(state.provider, key.name)]: { ...key.pointer, previous, revision },
          [ledgerKeys.revision]: revision,
        },
        deletes,
      );
    }
  }
  // Values no cached answer can hold any more leave the edge records too.
  for (const [provider, deletes] of await forgettable(storage, now)) {
    await committer.commit({}, deletes, [{ kind: "provider-history", provider }]);
  }
  return results;
}
