/**
 * @module
 * `createWorker`: the Worker's `fetch` and `scheduled` handlers, with the clock, id generation,
 * `fetch` and logger injectable for tests and the local demo. The routes (hono) are built once per
 * Worker; every request builds its own context (ledger and limiter stubs, edge reader) from `env`.
 */
import type {
  ExecutionContextLike,
  KvNamespaceLike,
  ScheduledControllerLike,
  WorkerEnv,
} from "./bindings.ts";
import { type DailySummaryEnv, runDailySummary } from "./daily-summary.ts";
import { defaultEdgeCacheMs, EdgeCache, EdgeReader } from "./edge-reader.ts";
import { errorResponse } from "./errors.ts";
import type {
  FetchFunction,
  HandlerContext,
  TimerFunction,
  WorkerLogger,
} from "./handler-context.ts";
import { buildApp } from "./http/app.ts";
import type { KeyLedgerApi } from "./ledger/ledger-api.ts";
import { ledgerName } from "./ledger/ledger-api.ts";
import { KeyPoolTracker } from "./pool/key-tracker.ts";
import { runScheduled, type ScheduledResult } from "./scheduled.ts";
import { readWorkerSettings } from "./settings.ts";

/** Options for {@link createWorker}. Defaults are resolved at call time. */
export interface WorkerOptions {
  /** Epoch ms; `Date.now` by default. */
  readonly now?: () => number;
  /** Used for every upstream call; `globalThis.fetch` by default. */
  readonly fetch?: FetchFunction;
  /** `console` by default. Lines never carry a key or a token. */
  readonly logger?: WorkerLogger;
  /**
   * Timers on the clock of `now` (a proxied call's `cf-aig-request-timeout`); `setTimeout` by
   * default. A test with an injected clock fires them as it moves the clock.
   */
  readonly setTimer?: TimerFunction;
  /** How long the isolate reuses an edge record it read from KV; 1 000 ms by default. */
  readonly edgeCacheMs?: number;
}

/** The Worker's handlers, as a module Worker's default export. */
export interface StepwiseWorker {
  fetch(request: Request, env: WorkerEnv, execution: ExecutionContextLike): Promise<Response>;
  scheduled(
    controller: ScheduledControllerLike,
    env: WorkerEnv,
    execution: ExecutionContextLike,
  ): Promise<void>;
  /** Runs the cron job and returns what it did (what `scheduled` runs). */
  runScheduled(env: WorkerEnv, execution?: ExecutionContextLike): Promise<ScheduledResult>;
}

/**
 * Builds the Worker.
 * @example export default createWorker();
 * @example const worker = createWorker({ now: () => clock, fetch: fakeGateway });
 */
export function createWorker(options: WorkerOptions = {}): StepwiseWorker {
  const logger = () => options.logger ?? console;
  // One cache per KV namespace binding (per location, in tests), kept for the isolate's life.
  const caches = new WeakMap<KvNamespaceLike, EdgeCache>();
  const cacheFor = (kv: KvNamespaceLike) => {
    let cache = caches.get(kv);
    if (cache === undefined) {
      cache = new EdgeCache(options.edgeCacheMs ?? defaultEdgeCacheMs);
      caches.set(kv, cache);
    }
    return cache;
  };
  // Durable Object ids are plain data: each app's (and provider's) is worked out (hashed) once
  // per isolate.
  const objectIds = new WeakMap<object, Map<string, unknown>>();
  const objectId = (namespace: WorkerEnv["APP_LIMITER" | "PROVIDER_MONITOR"], name: string) => {
    let ids = objectIds.get(namespace);
    if (ids === undefined) {
      ids = new Map();
      objectIds.set(namespace, ids);
    }
    let id = ids.get(name);
    if (id === undefined) {
      id = namespace.idFromName(name);
      if (ids.size >= 10_000) ids.clear();
      ids.set(name, id);
    }
    return id;
  };
  // What this isolate learnt about the pools of keys, kept for its life.
  const pools = new KeyPoolTracker();
  const contextFor = (env: WorkerEnv, execution: ExecutionContextLike): HandlerContext => {
    const settings = readWorkerSettings(env);
    const now = () => (options.now ?? Date.now)();
    const { keys: keySettings } = settings.config;
    let ledger: KeyLedgerApi | undefined;
    return {
      kv: env.KEYS,
      edge: new EdgeReader(env.KEYS, now, cacheFor(env.KEYS)),
      // Only admin calls and the cron reach the ledger.
      get ledger() {
        ledger ??= env.KEY_LEDGER.get(env.KEY_LEDGER.idFromName(ledgerName));
        return ledger;
      },
      limiter: (appId) => env.APP_LIMITER.get(objectId(env.APP_LIMITER, appId)),
      pools,
      monitor: (provider) => env.PROVIDER_MONITOR.get(objectId(env.PROVIDER_MONITOR, provider)),
      settings,
      events: env.EVENTS,
      execution,
      fetch: (input, init) => (options.fetch ?? globalThis.fetch)(input, init),
      logger: logger(),
      now,
      receivedAt: now(),
      setTimer: (ms, fire) => (options.setTimer ?? realTimer)(ms, fire),
      reportSettings: () => ({
        now: now(),
        maxAgeDays: keySettings.maxAgeDays,
        historySeconds: Math.max(60, keySettings.historyHours * 3600),
        graceSeconds: keySettings.graceSeconds,
        managedProviders: keySettings.providers,
      }),
    };
  };
  const app = buildApp(contextFor, logger);

  const run = (env: WorkerEnv, execution: ExecutionContextLike) =>
    runScheduled(contextFor(env, execution));

  return {
    async fetch(request, env, execution) {
      try {
        return await app.fetch(request, env, execution as never);
      } catch (error) {
        return errorResponse(error, logger());
      }
    },
    async scheduled(controller, env, execution) {
      execution.waitUntil(run(env, execution));
      const context = contextFor(env, execution);
      execution.waitUntil(
        runDailySummary({
          env: dailySummaryEnv(env),
          accountId: context.settings.config.accountId,
          scheduledTime: controller.scheduledTime,
          fetch: context.fetch,
          logger: context.logger,
        }),
      );
    },
    runScheduled: (env, execution = { waitUntil: () => undefined }) => run(env, execution),
  };
}

/** `setTimeout`, cancellable. */
const realTimer: TimerFunction = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/** What the daily summary reads: its bindings, and Cloudflare's API base (the emulator's locally). */
function dailySummaryEnv(env: WorkerEnv): DailySummaryEnv {
  return {
    DAILY_SUMMARY: env.DAILY_SUMMARY,
    ANALYTICS_API_TOKEN: env.ANALYTICS_API_TOKEN,
    EVENTS_DATASET: env.EVENTS_DATASET,
    ANALYTICS_API_URL: env.CLOUDFLARE_API_URL,
  };
}
