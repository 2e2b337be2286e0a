/**
 * @module
 * What every proxied call starts with, whatever its path: the gateway it names (404 when this
 * Worker does not serve it), its time limit (`cf-aig-request-timeout`), the app's limiter asked at
 * once (its answer awaited by {@link afterLimit}, so an app over its limit always gets the 429),
 * the headers to send upstream (the app's credentials out, the gateway token in), the facts its
 * Analytics Engine point needs, and the secrets scrubbed from its answer.
 */
import type { WorkerViewGateway } from "../../config/worker-view.ts";
import type { RateLimitDecision } from "../app-limiter.ts";
import { WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import type { StoredAppToken } from "../key-layout.ts";
import { findGateway } from "../settings.ts";
import { type CallFacts, requestMetadata } from "./analytics-point.ts";
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
  const limit = caller.app.rateLimit ?? context.settings.config.worker.appRateLimit;
  const admitted = context.limiter(caller.app.id).admit(limit);
  // A refusal is reported by `enforceLimit`; never leave it unhandled meanwhile.
  admitted.catch(() => undefined);
  const url = new URL(request.url);
  const { route, metadata, place } = requestMetadata(request.headers);
  return {
    gateway,
    url: `${context.settings.gatewayUrl}${url.pathname}${url.search}`,
    headers: upstreamHeaders(request.headers, context.settings.gatewayToken),
    admitted,
    deadline,
    limitText: `App ${caller.app.name} is over its limit of ${limit.limit} requests per ${limit.windowSeconds} s`,
    facts: {
      gateway: gateway.id,
      app: caller.app.id,
      metadata,
      eventId: request.headers.get("cf-aig-event-id"),
      route,
      place,
    },
  };
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

export function secretsOf(
  pools: readonly ResolvedPool[],
  caller: ProxyCaller,
  context: HandlerContext,
): (string | undefined)[] {
  return [
    ...pools.flatMap((pool) => pool.keys.map((key) => key.key)),
    caller.token,
    context.settings.gatewayToken,
  ];
}
