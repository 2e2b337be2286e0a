/**
 * @module
 * The Worker's Durable Object classes, as the runtime constructs them (`wrangler.jsonc`
 * `durable_objects`, migrated as SQLite-backed classes):
 *
 * - `KeyLedger`: one object (named `key-ledger`), the single writer of the key lifecycle and app
 *   tokens, writing through to KV; its alarm retries edge writes that had to wait.
 * - `AppLimiter`: one object per app id, its exact request counter.
 *
 * Each is a thin shell around a core that takes its storage, clock and edge targets as
 * arguments (`KeyLedgerCore`, `FixedWindowCounter`), so the tests run the same logic with a test
 * clock and a KV double.
 */
import { DurableObject } from "cloudflare:workers";
import type { WorkerEnv } from "./bindings.ts";
import { KeyLedgerCore } from "./ledger/key-ledger.ts";
import { kvEdgeTarget } from "./ledger/kv-edge-target.ts";
import type { KeyLedgerApi, NewApp, RotateRequest } from "./ledger/ledger-api.ts";
import type { LedgerStorage } from "./ledger/ledger-storage.ts";
import {
  type AppLimiterApi,
  FixedWindowCounter,
  type RateLimit,
  type WindowCount,
} from "./limits/app-limiter.ts";

/** The part of `DurableObjectState` these classes use. */
export interface DurableObjectContext {
  readonly storage: LedgerStorage & {
    put(key: string, value: unknown, options?: { allowUnconfirmed?: boolean }): Promise<void>;
    setAlarm(scheduledTime: number): Promise<void>;
  };
}

/** The single writer of keys and app tokens. */
export class KeyLedger extends DurableObject<WorkerEnv> implements KeyLedgerApi {
  readonly #core: KeyLedgerCore;

  constructor(ctx: DurableObjectContext, env: WorkerEnv) {
    super(ctx, env);
    this.#core = new KeyLedgerCore({
      storage: ctx.storage,
      targets: [kvEdgeTarget(env.KEYS)],
      wakeAt: (at) => ctx.storage.setAlarm(at),
      onWriteFailure: (target, entry, attempts) =>
        console.warn(
          `stepwise worker: could not write ${entry} to ${target} (attempt ${attempts}); retrying`,
        ),
    });
  }

  rotate(provider: string, request: RotateRequest) {
    return this.#core.rotate(provider, request);
  }
  rollback(provider: string, toVersion: string | null) {
    return this.#core.rollback(provider, toVersion);
  }
  revoke(provider: string, version: string, force: boolean) {
    return this.#core.revoke(provider, version, force);
  }
  provider(provider: string) {
    return this.#core.provider(provider);
  }
  providers() {
    return this.#core.providers();
  }
  createApp(app: NewApp) {
    return this.#core.createApp(app);
  }
  apps() {
    return this.#core.apps();
  }
  revokeApp(id: string) {
    return this.#core.revokeApp(id);
  }
  sweep(historySeconds: number) {
    return this.#core.sweep(historySeconds);
  }
  alarm(): Promise<void> {
    return this.#core.runAlarm();
  }
}

const countKey = "window";
/** A busy counter is saved at most this often (the latest count, a little later). */
const saveEveryMs = 1000;

/** One app's exact request counter. */
export class AppLimiter extends DurableObject<WorkerEnv> implements AppLimiterApi {
  readonly #counter: FixedWindowCounter;
  #unsaved: WindowCount | undefined;

  constructor(ctx: DurableObjectContext, env: WorkerEnv) {
    super(ctx, env);
    this.#counter = new FixedWindowCounter({
      store: {
        load: () => ctx.storage.get<WindowCount>(countKey),
        save: (count) => {
          // Saving every count would cost a storage write per proxied call: the latest count is
          // saved once a second instead, so a restart (a deploy) forgets at most that second.
          if (this.#unsaved === undefined) {
            setTimeout(() => {
              const latest = this.#unsaved;
              this.#unsaved = undefined;
              if (latest !== undefined) {
                ctx.storage
                  .put(countKey, latest, { allowUnconfirmed: true })
                  .catch(() => undefined);
              }
            }, saveEveryMs);
          }
          this.#unsaved = count;
        },
      },
    });
  }

  admit(limit: RateLimit) {
    return this.#counter.admit(limit);
  }
}
