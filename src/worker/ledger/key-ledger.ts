/**
 * @module
 * `KeyLedgerCore`: the single writer of the key lifecycle and app tokens, run inside the
 * `KeyLedger` Durable Object. Every operation runs alone, in arrival order (a queue: the Durable
 * Object's input gates do not cover the edge writes an operation awaits), reads the truth from
 * the object's storage, commits its change together with the outbox entries it makes stale in
 * one transaction, then writes those entries through to the edge before it answers. The answer is
 * the state it committed, with its revision: never a constant, never a read of KV.
 */
import { StepwiseError } from "../../errors/index.ts";
import { fingerprint, randomHex } from "../crypto.ts";
import { makeVersion, type StoredAppToken, versionPattern } from "../key-layout.ts";
import type {
  KeyLedgerApi,
  LedgerAnswer,
  LedgerPointer,
  NewApp,
  ProviderState,
  RotateRequest,
  SweepResult,
} from "./ledger-api.ts";
import {
  type LedgerStorage,
  type LedgerVersion,
  ledgerKeys,
  storageReader,
} from "./ledger-storage.ts";
import {
  type LifecyclePlan,
  type ProviderTruth,
  planRevocation,
  planRollback,
  planRotation,
} from "./lifecycle.ts";
import { type LedgerChange, Outbox, type WriteThroughTarget } from "./write-through.ts";

/** Options for {@link KeyLedgerCore}. Defaults are resolved at call time. */
export interface KeyLedgerOptions {
  readonly storage: LedgerStorage;
  readonly targets: readonly WriteThroughTarget[];
  /** Asks to be woken (`runAlarm`) at an epoch ms: the Durable Object's alarm. */
  readonly wakeAt: (at: number) => Promise<void>;
  /** Epoch ms; `Date.now` by default. */
  readonly now?: () => number;
  /** Random part of version ids (1–32 lowercase letters and digits). */
  readonly generateId?: () => string;
  /** Told about failed edge writes (names only, never a value). */
  readonly onWriteFailure?: (target: string, entry: string, attempts: number) => void;
}

/** Deletes and puts are limited to 128 keys per call. */
const maxKeysPerCall = 128;

/** The ledger. One instance per Durable Object instance. */
export class KeyLedgerCore implements KeyLedgerApi {
  readonly #options: KeyLedgerOptions;
  readonly #outbox: Outbox;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: KeyLedgerOptions) {
    this.#options = options;
    this.#outbox = new Outbox({
      storage: options.storage,
      truth: storageReader(options.storage),
      targets: options.targets,
      now: () => this.#now(),
      wakeAt: options.wakeAt,
      ...(options.onWriteFailure === undefined ? {} : { onFailure: options.onWriteFailure }),
    });
  }

  rotate(provider: string, request: RotateRequest) {
    return this.#serial(async () => {
      const now = this.#now();
      const randomPart = (this.#options.generateId ?? (() => randomHex(8)))();
      const version = makeVersion(now, randomPart);
      if (!versionPattern.test(version)) {
        throw new StepwiseError({
          code: "invalid_option",
          message: `generateId returned "${randomPart}": it must return 1 to 32 lowercase letters and digits`,
        });
      }
      const added: LedgerVersion = {
        key: request.key,
        metadata: {
          provider,
          version,
          rotatedAt: now,
          expiresAt: request.expiresAt,
          fingerprint: await fingerprint(request.key),
          label: request.label,
          retiredAt: null,
          revokedAt: null,
        },
      };
      const plan = await planRotation(await this.#truth(provider), added, now);
      const committed = await this.#commitPlan(provider, plan);
      const state = await this.#state(provider);
      return { ...committed, value: { version: added.metadata, state } };
    });
  }

  rollback(provider: string, toVersion: string | null) {
    return this.#serial(async () => {
      const decision = await planRollback(await this.#truth(provider), toVersion, this.#now());
      if (!decision.ok) return decision;
      const committed = await this.#commitPlan(provider, decision.plan);
      return { ...committed, value: await this.#state(provider) };
    });
  }

  revoke(provider: string, version: string, force: boolean) {
    return this.#serial(async () => {
      const truth = await this.#truth(provider);
      const decision = await planRevocation(truth, version, force, this.#now());
      if (!decision.ok) return decision;
      const committed = await this.#commitPlan(provider, decision.plan);
      return { ...committed, value: await this.#state(provider) };
    });
  }

  provider(provider: string): Promise<ProviderState> {
    return this.#state(provider);
  }

  async providers(): Promise<ProviderState[]> {
    const pointers = await this.#options.storage.list({ prefix: ledgerKeys.pointerPrefix });
    const names = [...pointers.keys()].map((key) => key.slice(ledgerKeys.pointerPrefix.length));
    return Promise.all(names.sort().map((name) => this.#state(name)));
  }

  createApp(app: NewApp): Promise<LedgerAnswer<StoredAppToken>> {
    return this.#serial(async () => {
      const stored: StoredAppToken = { ...app, createdAt: this.#now() };
      const committed = await this.#commit(
        { [ledgerKeys.app(app.id)]: stored },
        [],
        [{ kind: "app", id: app.id }],
      );
      return { ...committed, value: stored };
    });
  }

  async apps(): Promise<StoredAppToken[]> {
    const apps = await this.#options.storage.list<StoredAppToken>({
      prefix: ledgerKeys.appPrefix,
    });
    return [...apps.values()].sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  revokeApp(id: string): Promise<LedgerAnswer<StoredAppToken>> {
    return this.#serial(async () => {
      const stored = await this.#options.storage.get<StoredAppToken>(ledgerKeys.app(id));
      if (stored === undefined) {
        return {
          ok: false as const,
          refusal: {
            status: 404,
            code: "unknown_app",
            message: `No app with id ${JSON.stringify(id.slice(0, 40))}; list apps with GET /app-tokens.`,
          },
        };
      }
      const committed = await this.#commit({}, [ledgerKeys.app(id)], [{ kind: "app", id }]);
      return { ...committed, value: stored };
    });
  }

  sweep(historySeconds: number): Promise<SweepResult[]> {
    return this.#serial(async () => {
      const now = this.#now();
      const results: SweepResult[] = [];
      for (const state of await this.providers()) {
        const expired = state.versions.filter((metadata) => {
          const endedAt = metadata.revokedAt ?? metadata.retiredAt;
          return (
            metadata.version !== state.pointer?.current &&
            endedAt !== null &&
            now - endedAt >= historySeconds * 1000
          );
        });
        const removed = expired.map((metadata) => metadata.version);
        results.push({ provider: state.provider, removed });
        if (removed.length === 0 || state.pointer === null) continue;
        const pointer = state.pointer;
        const previous =
          pointer.previous !== null && removed.includes(pointer.previous) ? null : pointer.previous;
        const revision = (await this.#revision()) + 1;
        const deletes = removed.map((version) => ledgerKeys.version(state.provider, version));
        await this.#write(
          {
            [ledgerKeys.pointer(state.provider)]: { ...pointer, previous, revision },
            [ledgerKeys.revision]: revision,
          },
          deletes,
        );
      }
      return results;
    });
  }

  /** The alarm: writes whatever the edge still lacks. */
  runAlarm(): Promise<void> {
    return this.#serial(async () => {
      await this.#outbox.flushDue();
    });
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** Runs operations one at a time, in arrival order; a failure does not stop the queue. */
  #serial<Value>(work: () => Promise<Value>): Promise<Value> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #truth(provider: string): Promise<ProviderTruth> {
    const reader = storageReader(this.#options.storage);
    return {
      provider,
      pointer: await reader.pointer(provider),
      version: (version) => reader.version(provider, version),
    };
  }

  async #state(provider: string): Promise<ProviderState> {
    const { storage } = this.#options;
    const [pointer, versions] = await Promise.all([
      storage.get<LedgerPointer>(ledgerKeys.pointer(provider)),
      storage.list<LedgerVersion>({ prefix: ledgerKeys.versionPrefix(provider) }),
    ]);
    return {
      provider,
      pointer: pointer ?? null,
      versions: [...versions.values()]
        .map((stored) => stored.metadata)
        .sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0)),
    };
  }

  async #revision(): Promise<number> {
    return (await this.#options.storage.get<number>(ledgerKeys.revision)) ?? 0;
  }

  async #commitPlan(provider: string, plan: LifecyclePlan) {
    const puts: Record<string, unknown> = {};
    for (const stored of plan.versions) {
      puts[ledgerKeys.version(provider, stored.metadata.version)] = stored;
    }
    const revision = (await this.#revision()) + 1;
    puts[ledgerKeys.pointer(provider)] = { ...plan.pointer, revision } satisfies LedgerPointer;
    const changes: LedgerChange[] = plan.currentChanged ? [{ kind: "provider-key", provider }] : [];
    return this.#commit(puts, [], changes, revision);
  }

  /** Commits one change with its outbox entries, then writes them through. */
  async #commit(
    puts: Record<string, unknown>,
    deletes: readonly string[],
    changes: readonly LedgerChange[],
    revision?: number,
  ) {
    const committedRevision = revision ?? (await this.#revision()) + 1;
    const outbox = this.#outbox.recordsFor(changes, committedRevision);
    await this.#write({ ...puts, ...outbox, [ledgerKeys.revision]: committedRevision }, deletes);
    const flushed = await this.#outbox.flush(Object.keys(outbox));
    return {
      ok: true as const,
      revision: committedRevision,
      propagation: {
        written: flushed.writtenAt !== null,
        visibleEverywhereBy:
          flushed.writtenAt === null ? null : flushed.writtenAt + flushed.propagationMs,
      },
    };
  }

  /** One transaction: the puts and deletes are issued together, without an await in between. */
  async #write(puts: Record<string, unknown>, deletes: readonly string[]): Promise<void> {
    const { storage } = this.#options;
    const entries = Object.entries(puts);
    const writes: Promise<unknown>[] = [];
    for (let start = 0; start < entries.length; start += maxKeysPerCall) {
      writes.push(storage.put(Object.fromEntries(entries.slice(start, start + maxKeysPerCall))));
    }
    for (let start = 0; start < deletes.length; start += maxKeysPerCall) {
      writes.push(storage.delete(deletes.slice(start, start + maxKeysPerCall)));
    }
    await Promise.all(writes);
  }
}
