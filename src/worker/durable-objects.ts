/**
 * @module
 * The Worker's Durable Object classes, as the runtime constructs them (`wrangler.jsonc`
 * `durable_objects`, migrated as SQLite-backed classes):
 *
 * - `KeyLedger`: one object (named `key-ledger`), the single writer of the key lifecycle and app
 *   tokens, writing through to KV; its alarm retries edge writes that had to wait.
 * - `AppLimiter`: one object per app id, its exact request counter.
 * - `ProviderMonitor`: one object per provider, the shared view of its pool of keys (usage,
 *   cool-downs, caps) and its models' probe history.
 *
 * Each is a thin shell around a core that takes its storage, clock and edge targets as
 * arguments (`KeyLedgerCore`, `FixedWindowCounter`), so the tests run the same logic with a test
 * clock and a KV double.
 */
import { DurableObject } from "cloudflare:workers";
import {
  type AppLimiterApi,
  FixedWindowCounter,
  type RateLimit,
  type WindowCount,
} from "./app-limiter.ts";
import type { WorkerEnv } from "./bindings.ts";
import type { ProbeResult } from "./health/model-health.ts";
import { ModelHealthBook, type ProbeSettings } from "./health/model-health-book.ts";
import { KeyLedgerCore } from "./ledger/key-ledger.ts";
import type { KeyLedgerApi, NewApp, RotateRequest } from "./ledger/ledger-api.ts";
import type { LedgerStorage } from "./ledger/ledger-storage.ts";
import { ledgerTargets } from "./ledger/ledger-targets.ts";
import type { KeyReport, KeySnapshot } from "./pool/key-usage.ts";
import type { ProviderMonitorApi } from "./pool/monitor-api.ts";
import { KeyPoolMonitorCore } from "./pool/provider-monitor.ts";

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
      targets: ledgerTargets(
        env,
        (input, init) => fetch(input, init),
        (message) => console.warn(message),
      ),
      wakeAt: (at) => ctx.storage.setAlarm(at),
      onWriteFailure: (target, entry, attempts, cause) =>
        console.warn(
          `stepwise worker: could not write ${entry} to ${target} (attempt ${attempts}: ${cause}); retrying`,
        ),
    });
  }

  rotate(provider: string, name: string, request: RotateRequest) {
    return this.#core.rotate(provider, name, request);
  }
  rollback(provider: string, name: string, toVersion: string | null) {
    return this.#core.rollback(provider, name, toVersion);
  }
  revoke(provider: string, name: string, version: string, force: boolean) {
    return this.#core.revoke(provider, name, version, force);
  }
  removeKey(provider: string, name: string) {
    return this.#core.removeKey(provider, name);
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

const keysKey = "keys";

/** One provider's shared view: its pool of keys and its models' probe history. */
export class ProviderMonitor extends DurableObject<WorkerEnv> implements ProviderMonitorApi {
  readonly #keys: KeyPoolMonitorCore;
  readonly #models: ModelHealthBook;
  #saveScheduled = false;
  #latest: readonly KeySnapshot[] = [];

  constructor(ctx: DurableObjectContext, env: WorkerEnv) {
    super(ctx, env);
    this.#models = new ModelHealthBook(ctx.storage);
    this.#keys = new KeyPoolMonitorCore({
      store: {
        load: () => ctx.storage.get<readonly KeySnapshot[]>(keysKey),
        save: (view) => {
          // Reports arrive up to once a second per isolate: the view is saved once a second.
          this.#latest = view;
          if (this.#saveScheduled) return;
          this.#saveScheduled = true;
          setTimeout(() => {
            this.#saveScheduled = false;
            ctx.storage
              .put(keysKey, this.#latest, { allowUnconfirmed: true })
              .catch(() => undefined);
          }, saveEveryMs);
        },
      },
    });
  }

  report(reports: readonly KeyReport[]) {
    return this.#keys.report(reports);
  }
  keys() {
    return this.#keys.snapshot();
  }
  recordProbe(probe: ProbeResult, settings: ProbeSettings) {
    return this.#models.record(probe, settings);
  }
  models() {
    return this.#models.all();
  }
}
