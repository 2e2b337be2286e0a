/**
 * @module
 * What every proxied call starts with, whatever its path: the gateway it names (404 when this
 * Worker does not serve it), its time limit (`cf-aig-request-timeout`), the app's limiter asked at
 * once (its answer awaited by {@link afterLimit}, so an app over its limit always gets the 429),
 * the headers to send upstream (the app's credentials out, the gateway token in, scoped to the app
 * by `app-scope.ts`), the facts its Analytics Engine point needs, and the secrets scrubbed from
 * its answer.
 */
import type { WorkerViewGateway } from "../../config/worker-view.ts";
import type { RateLimitDecision } from "../app-limiter.ts";
import { WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import type { StoredAppToken } from "../key-layout.ts";
import { findGateway } from "../settings.ts";
import type { CallFacts } from "./analytics-point.ts";
import { checkGateway } from "./app-allow.ts";
import { applyCachePlan, type CachePlan } from "./app-cache.ts";
import { scopeRequestHeaders } from "./app-scope.ts";
import { type CallDeadline, readDeadline } from "./call-deadline.ts";
import { upstreamHeaders } from "./headers.ts";
import type { ResolvedPool } from "./request-keys.ts";

/** The authenticated caller of a proxied request. */
export interface ProxyCaller {
  readonly app: StoredAppToken;
  /** The token it sent (scrubbed from the answer). */
  readonly token: string;
}

/** Where a proxied request goes and what is known before its body is read. */
export interface ProxyTarget {
  readonly gateway: WorkerViewGateway;
  readonly url: string;
  readonly headers: Headers;
  readonly admitted: Promise<RateLimitDecision>;
  /** What a 429 says: the app and its limit. */
  readonly limitText: string;
  /** The call's time limit, counted from its arrival (`cf-aig-request-timeout`). */
  readonly deadline: CallDeadline | null;
  readonly facts: Pick<CallFacts, "gateway" | "app" | "metadata" | "eventId" | "place"> & {
    readonly route: string | null;
  };
  /** The path and query the call goes to at the gateway. */
  readonly path: string;
  /** The app's own `cf-aig-cache-key` (not in `headers`: {@link scopeCache} scopes it). */
  readonly appCacheKey: string | undefined;
}

/** Checks the gateway, starts counting the call against the app's limit, prepares headers. */
export function prepare(
  request: Request,
  accountId: string,
  gatewayId: string,
  caller: ProxyCaller,
  context: HandlerContext,
): ProxyTarget {
  const deadline = readDeadline(request.headers, context.receivedAt);
  const gateway = findGateway(context.settings.config, accountId, gatewayId);
  if (gateway === undefined) {
    throw new WorkerError({
      status: 404,
      code: "unknown_gateway",
      message: `This Worker serves account ${context.settings.config.accountId} and gateways ${context.settings.config.gateways.map((item) => item.id).join(", ")}; check the URL.`,
    });
  }
  // Outside the app's allow-list, the call is refused before it counts against its limit.
  checkGateway(caller.app, gateway.id);
  const limit = caller.app.rateLimit ?? context.settings.config.worker.appRateLimit;
  const admitted = context.limiter(caller.app.id).admit(limit);
  // A refusal is reported by `enforceLimit`; never leave it unhandled meanwhile.
  admitted.catch(() => undefined);
  const url = new URL(request.url);
  const scoped = scopeRequestHeaders(
    upstreamHeaders(request.headers, context.settings.gatewayToken),
    caller.app,
  );
  return {
    gateway,
    url: `${context.settings.gatewayUrl}${url.pathname}${url.search}`,
    headers: scoped.headers,
    path: `${url.pathname}${url.search}`,
    appCacheKey: scoped.appCacheKey,
    admitted,
    deadline,
    limitText: `App ${caller.app.name} is over its limit of ${limit.limit} requests per ${limit.windowSeconds} s`,
    facts: {
      gateway: gateway.id,
      app: caller.app.id,
      metadata: scoped.metadata,
      eventId: scoped.eventId,
      route: scoped.route,
      place: scoped.place,
    },
  };
}

/**
 * Scopes the call's cache key to its app where the gateway caches it (`app-cache.ts`). `body`:
 * the app's body as sent, null for none, undefined when the Worker did not read it whole.
 */
export async function scopeCache(
  target: ProxyTarget,
  plan: CachePlan,
  body: string | Uint8Array | null | undefined,
  method = "POST",
): Promise<void> {
  await applyCachePlan(target.headers, plan, {
    appId: target.facts.app,
    appKey: target.appCacheKey,
    method,
    path: target.path,
    body,
  });
}

/** Waits for the limiter's answer first, so an app over its limit always gets the 429. */
export async function afterLimit<Value>(target: ProxyTarget, work: Promise<Value>): Promise<Value> {
  work.catch(() => undefined);
  const decision = await target.admitted;
  if (!decision.allowed) {
    throw new WorkerError({
      status: 429,
      code: "rate_limited",
      message: `${target.limitText}; retry after ${decision.retryAfterSeconds} s.`,
      headers: { "retry-after": String(decision.retryAfterSeconds) },
    });
  }
  return work;
}

/**
 * Every secret an answer to this call may carry, to scrub: the keys sent, every value of the
 * providers' keys the ledger still lists at the edge (current, previous, history, revoked: a
 * cached answer may be replayed after a rotation), the app's token and the gateway token. Which
 * providers: with `anyProvider` (a cache key that does not name the call's providers — the app's
 * own `cf-aig-cache-key`, a shared cache — or a dynamic route, whose providers the gateway picks)
 * every provider the Worker holds keys for, since an answer cached for one may be replayed to a
 * call for another; else only the call's own (the answer is fresh, `cf-aig-skip-cache`, or cached
 * under the call's own method, path and body, which name them), so a call reads no other
 * provider's record. The edge reads start now and are awaited only once the answer is in.
 */
export function secretsOf(
  pools: readonly ResolvedPool[],
  caller: ProxyCaller,
  context: HandlerContext,
  anyProvider: boolean,
): Promise<(string | undefined)[]> {
  const providers = new Set([
    ...(anyProvider ? context.settings.config.keys.providers : []),
    ...pools.map((pool) => pool.provider),
  ]);
  const held = Promise.all([...providers].map((provider) => context.edge.heldValues(provider)));
  const secrets = held.then((values) => [
    ...pools.flatMap((pool) => pool.keys.map((key) => key.key)),
    ...values.flat(),
    caller.token,
    context.settings.gatewayToken,
  ]);
  // Awaited by `forward` once the answer is in; never left unhandled before that.
  secrets.catch(() => undefined);
  return secrets;
}
