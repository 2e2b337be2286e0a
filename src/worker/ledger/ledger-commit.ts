/**
 * @module
 * How the ledger writes its truth: one transaction per change (the puts and deletes issued
 * together, at most 128 keys a call, without an await in between), with the revision counter and
 * the outbox entries the change makes stale, then the write-through of those entries before the
 * answer. `KeyLedgerCore` decides what changes; this writes it.
 */
import type { LedgerPointer } from "./ledger-api.ts";
import { type LedgerStorage, ledgerKeys } from "./ledger-storage.ts";
import type { LifecyclePlan } from "./lifecycle.ts";
import type { LedgerChange, Outbox } from "./write-through.ts";

/** Deletes and puts are limited to 128 keys per call. */
const maxKeysPerCall = 128;

/** Writes the ledger's changes. Callers serialise calls (the ledger's queue). */
export class LedgerCommitter {
  readonly #storage: LedgerStorage;
  readonly #outbox: Outbox;

  constructor(storage: LedgerStorage, outbox: Outbox) {
    this.#storage = storage;
    this.#outbox = outbox;
  }

  /** The last committed revision (0 before the first). */
  async revision(): Promise<number> {
    return (await this.#storage.get<number>(ledgerKeys.revision)) ?? 0;
  }

  /** Commits a lifecycle plan for one pool key: its versions, its pointer, the edge record. */
  async commitPlan(
    provider: string,
    name: string,
    plan: LifecyclePlan,
    extraPuts: Record<string, unknown> = {},
  ) {
    const puts: Record<string, unknown> = { ...extraPuts };
    for (const stored of plan.versions) {
      puts[ledgerKeys.version(provider, name, stored.metadata.version)] = stored;
    }
    const revision = (await this.revision()) + 1;
    puts[ledgerKeys.pointer(provider, name)] = {
      ...plan.pointer,
      revision,
    } satisfies LedgerPointer;
    const changes: LedgerChange[] = plan.currentChanged
      ? [{ kind: "provider-key", provider, name }]
      : [];
    return this.commit(puts, [], changes, revision);
  }

  /** Commits one change with its outbox entries, then writes them through. */
  async commit(
    puts: Record<string, unknown>,
    deletes: readonly string[],
    changes: readonly LedgerChange[],
    revision?: number,
  ) {
    const committedRevision = revision ?? (await this.revision()) + 1;
    const outbox = this.#outbox.recordsFor(changes, committedRevision);
    await this.write({ ...puts, ...outbox, [ledgerKeys.revision]: committedRevision }, deletes);
    const flushed = await this.#outbox.flush(Object.keys(outbox));
    return {
      ok: true as const,
      revision: committedRevision,
      propagation: {
        written: flushed.writtenAt !== null,
        visibleEverywhereBy:
          flushed.writtenAt === null ? null : flushed.writtenAt + flushed.propagationMs,
        targets: flushed.entries,
      },
    };
  }

  /** One transaction: the puts and deletes are issued together, without an await in between. */
  async write(puts: Record<string, unknown>, deletes: readonly string[]): Promise<void> {
    const entries = Object.entries(puts);
    const writes: Promise<unknown>[] = [];
    for (let start = 0; start < entries.length; start += maxKeysPerCall) {
      writes.push(
        this.#storage.put(Object.fromEntries(entries.slice(start, start + maxKeysPerCall))),
      );
    }
    for (let start = 0; start < deletes.length; start += maxKeysPerCall) {
      writes.push(this.#storage.delete(deletes.slice(start, start + maxKeysPerCall)));
    }
    await Promise.all(writes);
  }
}
