/**
 * @module
 * `createWorker`: the Worker's `fetch` and `scheduled` handlers, with the clock, id generation,
 * `fetch` and logger injectable for tests and the local demo. Every request builds its own
 * stores from `env`; nothing is kept at module level.
 */

import { handleAdmin, notFound, requireAdmin } from "./admin-api.ts";
import { AppTokenStore } from "./app-tokens.ts";
import type { ExecutionContextLike, ScheduledControllerLike, WorkerEnv } from "./bindings.ts";
import { type DailySummaryEnv, runDailySummary } from "./daily-summary.ts";
import { errorResponse, jsonResponse, unauthorized, WorkerError } from "./errors.ts";
import type { FetchFunction, HandlerContext, WorkerLogger } from "./handler-context.ts";
import { healthResponse } from "./health.ts";
import { KeyStore } from "./key-store.ts";
import { authenticateApp, handleProxy } from "./proxy.ts";
import { methodNotAllowed, pathSegments } from "./routing.ts";
import { runScheduled, type ScheduledResult } from "./scheduled.ts";
import { readWorkerSettings } from "./settings.ts";

/** Options for {@link createWorker}. Defaults are resolved at call time. */
export interface WorkerOptions {
  /** Epoch ms; `Date.now` by default. */
  readonly now?: () => number;
  /** Random part of key version ids (1–32 lowercase letters and digits). */
  readonly generateId?: () => string;
  /** Used for every upstream call; `globalThis.fetch` by default. */
  readonly fetch?: FetchFunction;
  /** `console` by default. Lines never carry a key or a token. */
  readonly logger?: WorkerLogger;
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
  const contextFor = (env: WorkerEnv, execution: ExecutionContextLike): HandlerContext => {
    const settings = readWorkerSettings(env);
    const now = () => (options.now ?? Date.now)();
    const { keys: keySettings } = settings.config;
    const keyStoreOptions = {
      now,
      graceSeconds: keySettings.graceSeconds,
      historySeconds: keySettings.historyHours * 3600,
      ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
    };
    return {
      kv: env.KEYS,
      settings,
      keys: new KeyStore(env.KEYS, keyStoreOptions),
      apps: new AppTokenStore(env.KEYS, { now }),
      events: env.EVENTS,
      execution,
      fetch: (input, init) => (options.fetch ?? globalThis.fetch)(input, init),
      logger: options.logger ?? console,
      now,
      reportSettings: () => ({
        now: now(),
        maxAgeDays: keySettings.maxAgeDays,
        historySeconds: Math.max(60, keySettings.historyHours * 3600),
        graceSeconds: keySettings.graceSeconds,
        managedProviders: keySettings.providers,
      }),
    };
  };

  const run = (env: WorkerEnv, execution: ExecutionContextLike) =>
    runScheduled(contextFor(env, execution));

  return {
    async fetch(request, env, execution) {
      try {
        return await route(request, contextFor(env, execution));
      } catch (error) {
        return errorResponse(error, options.logger ?? console);
      }
    },
    async scheduled(controller, env, execution) {
      execution.waitUntil(run(env, execution));
      const context = contextFor(env, execution);
      execution.waitUntil(
        runDailySummary({
          env: env as DailySummaryEnv,
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

async function route(request: Request, context: HandlerContext): Promise<Response> {
  const segments = pathSegments(new URL(request.url).pathname);
  const [root] = segments;
  if (root === "v1") return handleProxy(request, segments, context);
  if (root === "keys" || root === "app-tokens") return handleAdmin(request, segments, context);
  if (root === "health" && segments.length === 1) {
    if (request.method !== "GET") throw methodNotAllowed(["GET"]);
    await requireAppOrAdmin(request, context);
    return healthResponse(context);
  }
  if (root === undefined && request.method === "GET") {
    return jsonResponse({
      name: "stepwise-keys",
      docs: "See the companion Worker section of README.md.",
    });
  }
  throw notFound();
}

/** `GET /health` accepts an app token or the admin token. */
async function requireAppOrAdmin(request: Request, context: HandlerContext): Promise<void> {
  try {
    await authenticateApp(request, context);
    return;
  } catch (error) {
    if (!WorkerError.isInstance(error)) throw error;
  }
  try {
    await requireAdmin(request, context);
  } catch {
    throw unauthorized();
  }
}
