/**
 * @module
 * Write-through from the ledger to the places that serve its truth. A commit names the things it
 * changed (a provider's key, an app); each {@link WriteThroughTarget} turns those into entries it
 * keeps (for KV: `current:{provider}`, `app:{id}`) and later brings each entry in line with the
 * truth *as it is then*, read from the ledger, never from the target itself.
 *
 * Entries wait in a durable outbox written in the same transaction as the commit, so a crash or
 * a failed write (KV refuses a second write of one key within a second: `429 Too Many Requests`)
 * is retried by the Durable Object's alarm, with backoff, until the target has caught up. Writes
 * run one at a time in the ledger's queue, so an older truth can never land after a newer one.
 *
 * Two targets exist: KV (`kv-edge-target.ts`, every key) and the gateways' BYOK secrets in
 * Secrets Store (`byok-target.ts`, the `default` key of each provider a gateway stores).
 */
import type { PendingWrite, TargetWrite } from "./ledger-api.ts";
import type { LedgerReader, LedgerStorage, OutboxEntry } from "./ledger-storage.ts";
import { ledgerKeys } from "./ledger-storage.ts";

/**
 * What a commit changed: one key of a provider's pool (by name), the values of a provider's keys
 * the proxy scrubs (`remembered-secrets.ts`: some were forgotten), or an app.
 */
export type LedgerChange =
  | { readonly kind: "provider-key"; readonly provider: string; readonly name: string }
  | { readonly kind: "provider-history"; readonly provider: string }
  | { readonly kind: "app"; readonly id: string };

/** A store that serves (part of) the ledger's truth and is written only by the ledger. */
export interface WriteThroughTarget {
  /** Short stable name, e.g. `kv`; part of outbox keys. */
  readonly name: string;
  /** How long to wait before retrying a failed write, in ms (KV: 1000, its write interval). */
  readonly retryAfterMs: number;
  /** How long after a write every reader sees it, in ms (KV: 60 000); 0 when at once. */
  readonly propagationMs: number;
  /** The entries a change touches (none when this target does not serve it). */
  entriesFor(change: LedgerChange): readonly string[];
  /** Writes (or deletes) one entry from the truth as it is now. Throws when the write failed. */
  apply(entry: string, truth: LedgerReader): Promise<void>;
}

/** What became of the entries of one commit. */
export interface FlushOutcome {
  /** Epoch ms of the latest KV write; null when some KV entry is still pending. */
  readonly writtenAt: number | null;
  /** The longest propagation of the targets written. */
  readonly propagationMs: number;
  /** Each entry, written or pending. */
  readonly entries: readonly TargetWrite[];
}

/** Options for {@link Outbox}. */
export interface OutboxOptions {
  readonly storage: LedgerStorage;
  readonly truth: LedgerReader;
  readonly targets: readonly WriteThroughTarget[];
  readonly now: () => number;
  /** Asks for `flushDue` to run at (or soon after) an epoch ms: the Durable Object's alarm. */
  readonly wakeAt: (at: number) => Promise<void>;
  /** Told about each failed write (target and entry names and the cause, never a value). */
  readonly onFailure?: (target: string, entry: string, attempts: number, cause: string) => void;
}

const maxBackoffMs = 60_000;

/** The durable queue of edge writes. Callers serialise calls (the ledger runs it in its queue). */
export class Outbox {
  readonly #options: OutboxOptions;

  constructor(options: OutboxOptions) {
    this.#options = options;
  }

  /** The outbox records to store with a commit of `changes` at `revision`. */
  recordsFor(changes: readonly LedgerChange[], revision: number): Record<string, OutboxEntry> {
    const records: Record<string, OutboxEntry> = {};
    for (const target of this.#options.targets) {
      for (const change of changes) {
        for (const entry of target.entriesFor(change)) {
          records[ledgerKeys.outbox(target.name, entry)] = {
            target: target.name,
            entry,
            revision,
            attempts: 0,
            notBefore: 0,
            ...(change.kind === "app" ? {} : { provider: change.provider }),
          };
        }
      }
    }
    return records;
  }

  /** Writes the given entries now where the targets allow it; the rest wait for the alarm. */
  async flush(storageKeys: readonly string[]): Promise<FlushOutcome> {
    const pending = await this.#options.storage.get<OutboxEntry>([...storageKeys]);
    return this.#flushEntries([...pending.entries()]);
  }

  /** Writes every entry that is due (the alarm handler). */
  async flushDue(): Promise<FlushOutcome> {
    const pending = await this.#options.storage.list<OutboxEntry>({
      prefix: ledgerKeys.outboxPrefix,
    });
    return this.#flushEntries([...pending.entries()]);
  }

  /** The writes still owed for one provider's keys. */
  async pendingFor(provider: string): Promise<PendingWrite[]> {
    const pending = await this.#options.storage.list<OutboxEntry>({
      prefix: ledgerKeys.outboxPrefix,
    });
    return [...pending.values()]
      .filter((record) => record.provider === provider)
      .map((record) => ({
        target: record.target,
        entry: record.entry,
        state: "pending" as const,
        attempts: record.attempts,
        retryAt: Math.max(record.notBefore, this.#options.now()),
        ...(record.lastError === undefined ? {} : { lastError: record.lastError }),
      }));
  }

  async #flushEntries(entries: [string, OutboxEntry][]): Promise<FlushOutcome> {
    let writtenAt: number | null = 0;
    let propagationMs = 0;
    const outcomes: TargetWrite[] = [];
    for (const [storageKey, record] of entries) {
      const written = await this.#flushOne(storageKey, record);
      const target = this.#target(record.target);
      outcomes.push({
        target: record.target,
        entry: record.entry,
        state: written === null ? "pending" : "written",
      });
      if (record.target === "kv") {
        if (written === null) writtenAt = null;
        else if (writtenAt !== null) writtenAt = Math.max(writtenAt, written);
      }
      propagationMs = Math.max(propagationMs, target?.propagationMs ?? 0);
    }
    await this.#scheduleNext();
    return {
      writtenAt: writtenAt === 0 ? this.#options.now() : writtenAt,
      propagationMs,
      entries: outcomes,
    };
  }

  /** Writes one entry if it is due; the epoch ms of the write, or null if it still waits. */
  async #flushOne(storageKey: string, record: OutboxEntry): Promise<number | null> {
    const { storage, now } = this.#options;
    const target = this.#target(record.target);
    if (target === undefined) {
      // A target that no longer exists (removed from the deployment): nothing to write.
      await storage.delete([storageKey]);
      return now();
    }
    if (now() < record.notBefore) return null;
    try {
      await target.apply(record.entry, this.#options.truth);
    } catch (error) {
      const attempts = record.attempts + 1;
      // Targets throw messages that name a cause, never a value (see each target).
      const lastError = error instanceof Error ? error.message.slice(0, 300) : "the write failed";
      this.#options.onFailure?.(target.name, record.entry, attempts, lastError);
      const backoff = Math.min(maxBackoffMs, target.retryAfterMs * 2 ** (attempts - 1));
      await storage.put({
        [storageKey]: { ...record, attempts, notBefore: now() + backoff, lastError },
      });
      return null;
    }
    await storage.delete([storageKey]);
    return now();
  }

  async #scheduleNext(): Promise<void> {
    const pending = await this.#options.storage.list<OutboxEntry>({
      prefix: ledgerKeys.outboxPrefix,
    });
    if (pending.size === 0) return;
    const next = Math.min(...[...pending.values()].map((record) => record.notBefore));
    await this.#options.wakeAt(Math.max(next, this.#options.now()));
  }

  #target(name: string): WriteThroughTarget | undefined {
    return this.#options.targets.find((target) => target.name === name);
  }
}
