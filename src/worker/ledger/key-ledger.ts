/**
 * @module
 * `KeyLedgerCore`: the single writer of the key lifecycle and app tokens, run inside the
 * `KeyLedger` Durable Object. Every operation runs alone, in arrival order (a queue: the Durable
 * Object's input gates do not cover the edge writes an operation awaits), reads the truth from
 * the object's storage, commits its change together with the outbox entries it makes stale in
 * one transaction (`ledger-commit.ts`), then writes those entries through to the edge before it
 * answers. The answer is the state it committed, with its revision: never a constant, never a
 * read of KV, read back by `ledger-state.ts`. Which history the cron's sweep removes is decided
 * in `history-sweep.ts` and carried out in `ledger-sweep.ts`; a value it erases stays known to the
 * proxy's scrubber while a cached answer may hold it (`remembered-secrets.ts`).
 *
 * A provider has a pool of keys, each named (`default` unless named) with its own versions,
 * pointer, rotation, rollback and revocation.
 */
import { StepwiseError } from "../../errors/index.ts";
import { fingerprint, randomHex } from "../crypto.ts";
import { makeVersion, type StoredAppToken, versionPattern } from "../key-layout.ts";
import type {
  KeyLedgerApi,
  LedgerAnswer,
  NewApp,
  ProviderState,
  RotateRequest,
  SweepResult,
} from "./ledger-api.ts";
import { LedgerCommitter } from "./ledger-commit.ts";
import { migrateLayout } from "./ledger-migration.ts";
import { keyTruth, providerNames, providerState } from "./ledger-state.ts";
import {
  type LedgerStorage,
  type LedgerVersion,
  ledgerKeys,
  storageReader,
} from "./ledger-storage.ts";
import { sweepHistory } from "./ledger-sweep.ts";
import {
  type LifecyclePlan,
  type ProviderTruth,
  planRevocation,
  planRollback,
  planRotation,
  subjectOf,
} from "./lifecycle.ts";
import { rememberErased } from "./remembered-secrets.ts";
import { Outbox, type WriteThroughTarget } from "./write-through.ts";

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
  /** Told about failed edge writes (names and the cause only, never a value). */
  readonly onWriteFailure?: (
    target: string,
    entry: string,
    attempts: number,
    cause: string,
  ) => void;
}

/** The ledger. One instance per Durable Object instance. */
export class KeyLedgerCore implements KeyLedgerApi {
  readonly #options: KeyLedgerOptions;
  readonly #outbox: Outbox;
  readonly #committer: LedgerCommitter;
  #queue: Promise<unknown> = Promise.resolve();
  #migrated: Promise<void> | undefined;

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
    this.#committer = new LedgerCommitter(options.storage, this.#outbox);
  }

  rotate(provider: string, name: string, request: RotateRequest) {
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
          name,
          version,
          rotatedAt: now,
          expiresAt: request.expiresAt,
          fingerprint: await fingerprint(request.key),
          label: request.label,
          retiredAt: null,
          revokedAt: null,
        },
      };
      const plan = await planRotation(await this.#truth(provider, name), added, now);
      const committed = await this.#commitPlan(provider, name, plan);
      const state = await this.#state(provider);
      return { ...committed, value: { version: added.metadata, state } };
    });
  }

  rollback(provider: string, name: string, toVersion: string | null) {
    return this.#serial(async () => {
      const truth = await this.#truth(provider, name);
      const decision = await planRollback(truth, toVersion, this.#now());
      if (!decision.ok) return decision;
      const committed = await this.#commitPlan(provider, name, decision.plan);
      return { ...committed, value: await this.#state(provider) };
    });
  }

  revoke(provider: string, name: string, version: string, force: boolean) {
    return this.#serial(async () => {
      const truth = await this.#truth(provider, name);
      const decision = await planRevocation(truth, version, force, this.#now());
      if (!decision.ok) return decision;
      const committed = await this.#commitPlan(provider, name, decision.plan);
      return { ...committed, value: await this.#state(provider) };
    });
  }

  removeKey(provider: string, name: string): Promise<LedgerAnswer<ProviderState>> {
    return this.#serial(async () => {
      const now = this.#now();
      const truth = await this.#truth(provider, name);
      const versions = await this.#options.storage.list<LedgerVersion>({
        prefix: ledgerKeys.versionPrefix(provider, name),
      });
      const live = [...versions.values()].filter((stored) => stored.metadata.revokedAt === null);
      if (truth.pointer === undefined || (truth.pointer.current === null && live.length === 0)) {
        return {
          ok: false as const,
          refusal: {
            status: 404,
            code: "unknown_key",
            message: `${subjectOf(truth)} is not in the pool; list the pool with GET /keys/${provider}.`,
          },
        };
      }
      const revoked = live.map((stored) => ({
        key: null,
        metadata: {
          ...stored.metadata,
          revokedAt: now,
          retiredAt: stored.metadata.retiredAt ?? now,
        },
      }));
      const committed = await this.#commitPlan(provider, name, {
        pointer: { current: null, previous: null, switchedAt: now },
        versions: revoked,
        currentChanged: true,
      });
      return { ...committed, value: await this.#state(provider) };
    });
  }

  async provider(provider: string): Promise<ProviderState> {
    await this.#ready();
    return this.#state(provider);
  }

  async providers(): Promise<ProviderState[]> {
    await this.#ready();
    const names = await providerNames(this.#options.storage);
    return Promise.all(names.map((name) => this.#state(name)));
  }

  createApp(app: NewApp): Promise<LedgerAnswer<StoredAppToken>> {
    return this.#serial(async () => {
      const stored: StoredAppToken = { ...app, createdAt: this.#now() };
      const committed = await this.#committer.commit(
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
      const committed = await this.#committer.commit(
        {},
        [ledgerKeys.app(id)],
        [{ kind: "app", id }],
      );
      return { ...committed, value: stored };
    });
  }

  sweep(historySeconds: number): Promise<SweepResult[]> {
    return this.#serial(async () => {
      const now = this.#now();
      const states = await this.providers();
      return sweepHistory(this.#options.storage, this.#committer, states, now, historySeconds);
    });
  }

  /** The alarm: writes whatever the edge still lacks. */
  runAlarm(): Promise<void> {
    return this.#serial(async () => {
      await this.#outbox.flushDue();
    });
  }

  /** Commits a plan; a value it erases is remembered for the scrubber (`remembered-secrets.ts`). */
  async #commitPlan(provider: string, name: string, plan: LifecyclePlan) {
    const { storage } = this.#options;
    const remembered = await rememberErased(storage, provider, name, plan.versions, this.#now());
    return this.#committer.commitPlan(provider, name, plan, remembered);
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** Runs operations one at a time, in arrival order; a failure does not stop the queue. */
  #serial<Value>(work: () => Promise<Value>): Promise<Value> {
    const afterMigration = async () => {
      await this.#ready();
      return work();
    };
    const run = this.#queue.then(afterMigration, afterMigration);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Moves a ledger written before pools to the current layout, once. */
  #ready(): Promise<void> {
    this.#migrated ??= migrateLayout(this.#options.storage).catch((error: unknown) => {
      this.#migrated = undefined;
      throw error;
    });
    return this.#migrated;
  }

  #truth(provider: string, name: string): Promise<ProviderTruth> {
    return keyTruth(this.#options.storage, provider, name);
  }

  #state(provider: string): Promise<ProviderState> {
    return providerState(this.#options.storage, this.#outbox, provider);
  }
}
