/**
 * @module
 * The checks every gateway request passes before anything is forwarded, in Cloudflare's order:
 * the gateway exists in the account (400, 2001), the caller is authenticated when the gateway
 * requires it (401, 2009), the `cf-aig-*` headers are valid (400), and the gateway's rate limit
 * has room (429, 2003; the request is not forwarded). What passes becomes a `GatewayCall`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayRequestError, gatewayErrorCodes } from "../errors.ts";
import { headerValue } from "../http/io.ts";
import type { EmulatorServices } from "../services.ts";
import type { GatewayState } from "../state/gateway-store.ts";
import { CallAbort, type CallSignal } from "../transport/call-abort.ts";
import { type Directives, readDirectives } from "./directives.ts";

/**
 * Which generation of Cloudflare's front door the request came through: the legacy
 * `gateway.ai.cloudflare.com/v1/...` endpoints, or the REST API under `/client/v4/.../ai/`.
 */
export type CallSurface = "legacy" | "rest";

/** One accepted gateway request. */
export interface GatewayCall {
  readonly surface: CallSurface;
  readonly services: EmulatorServices;
  readonly gateway: GatewayState;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly directives: Directives;
  /** `cf-aig-request-id`; also the id of the request's first log record. */
  readonly requestId: string;
  /** Epoch ms (injected clock) when the gateway received the request. */
  readonly startedAt: number;
  /** Aborted when the client goes away or the emulator closes. */
  readonly signal: CallSignal;
  /** Whether this request is logged (gateway `collect_logs`, overridden by `cf-aig-collect-log`). */
  readonly collectLogs: boolean;
  /**
   * The caller authenticated with `Authorization: Bearer <gateway token>` (the compat endpoint's
   * documented OpenAI SDK usage), so that header is not a provider key.
   */
  readonly gatewayTokenInAuthorization: boolean;
  /** The request header that carried the gateway (API) token; it is never forwarded. */
  readonly tokenHeader: string | undefined;
  /** The id of the next log record: the request id first, fresh ids after. */
  nextLogId(): string;
}

export interface OpenCallOptions {
  /**
   * Also accept the gateway token as `Authorization: Bearer <token>` when `cf-aig-authorization`
   * is absent: Cloudflare's compat and dynamic-route examples authenticate the OpenAI SDK this
   * way (`apiKey: <CF_AIG_TOKEN>`).
   */
  readonly acceptAuthorization?: boolean;
}

/**
 * Runs the gateway-level checks.
 * @throws GatewayRequestError with Cloudflare's status and code for each refusal.
 */
export function openGatewayCall(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  params: { account: string; gateway: string },
  options: OpenCallOptions = {},
): GatewayCall {
  const token = headerValue(request, "cf-aig-authorization");
  const authorization = headerValue(request, "authorization");
  const gatewayTokenInAuthorization =
    options.acceptAuthorization === true &&
    token === undefined &&
    authorization !== undefined &&
    tokenMatches(authorization, services.gatewayToken);
  const authenticated =
    (token !== undefined && tokenMatches(token, services.gatewayToken)) ||
    gatewayTokenInAuthorization;
  const gateway = findGateway(services, params, authenticated);
  if (gateway.settings.authentication && !authenticated) {
    throw new GatewayRequestError(401, gatewayErrorCodes.unauthorized, "Unauthorized");
  }
  return acceptGatewayCall(services, gateway, request, response, {
    surface: "legacy",
    tokenHeader: gatewayTokenInAuthorization
      ? "authorization"
      : authenticated
        ? "cf-aig-authorization"
        : undefined,
  });
}

/** How an authenticated (or open) request reached its gateway. */
export interface AcceptOptions {
  readonly surface: CallSurface;
  readonly tokenHeader: string | undefined;
}

/**
 * The checks after the gateway is known and the caller may use it: the `cf-aig-*` headers, then
 * the gateway's rate limit.
 * @throws GatewayRequestError 400 for a bad header, 429 (2003) over the rate limit.
 */
export function acceptGatewayCall(
  services: EmulatorServices,
  gateway: GatewayState,
  request: IncomingMessage,
  response: ServerResponse,
  options: AcceptOptions,
): GatewayCall {
  const directives = readDirectives((name) => headerValue(request, name));
  const now = services.now();
  const { rate_limiting_limit: limit, rate_limiting_interval: interval } = gateway.settings;
  if (limit !== null && limit > 0 && interval !== null && interval > 0) {
    const spec = { technique: gateway.settings.rate_limiting_technique, windowMs: interval * 1000 };
    if (!gateway.rateLimit.tryConsume("gateway", spec, now, limit)) {
      throw new GatewayRequestError(429, gatewayErrorCodes.rateLimited, "Rate limited");
    }
  }
  // The request's one abort: the client going away or the emulator closing aborts it.
  const controller = new CallAbort();
  services.inFlight.add(controller);
  // `close` comes once; `on` spares the wrapper `once` allocates.
  response.on("close", () => {
    services.inFlight.delete(controller);
    if (!response.writableFinished) controller.abort();
  });
  return new AcceptedCall(
    services,
    gateway,
    request,
    response,
    directives,
    now,
    controller,
    options,
  );
}

/** A `GatewayCall` as a class: no closures to allocate (and name) per request. */
class AcceptedCall implements GatewayCall {
  readonly requestId: string;
  readonly collectLogs: boolean;
  readonly surface: CallSurface;
  readonly tokenHeader: string | undefined;
  readonly gatewayTokenInAuthorization: boolean;
  #logCount = 0;

  constructor(
    readonly services: EmulatorServices,
    readonly gateway: GatewayState,
    readonly request: IncomingMessage,
    readonly response: ServerResponse,
    readonly directives: Directives,
    readonly startedAt: number,
    readonly signal: CallSignal,
    options: AcceptOptions,
  ) {
    this.requestId = services.generateId();
    this.collectLogs = directives.collectLog ?? gateway.settings.collect_logs;
    this.surface = options.surface;
    this.tokenHeader = options.tokenHeader;
    this.gatewayTokenInAuthorization = options.tokenHeader === "authorization";
  }

  nextLogId(): string {
    return this.#logCount++ === 0 ? this.requestId : this.services.generateId();
  }
}

function findGateway(
  services: EmulatorServices,
  params: { account: string; gateway: string },
  authenticated: boolean,
): GatewayState {
  if (params.account !== services.config.accountId) throw gatewayNotFound(params);
  const existing = services.gateways.get(params.gateway);
  if (existing) return existing;
  // Cloudflare creates `default` on the first authenticated request.
  if (params.gateway === "default" && authenticated) return services.gateways.ensureDefault();
  throw gatewayNotFound(params);
}

export function gatewayNotFound(params: { account: string; gateway: string }): GatewayRequestError {
  return new GatewayRequestError(
    400,
    gatewayErrorCodes.gatewayNotFound,
    `Gateway "${params.gateway}" not found in account ${params.account}; create it first (or check the account id and gateway id in the URL).`,
  );
}

/** Compares `Bearer <token>` (or a bare token) in constant time. */
export function tokenMatches(header: string, expected: string): boolean {
  const given = header.replace(/^\s*bearer\s+/i, "").trim();
  // Digests of equal length, so the comparison says nothing about the token's length either.
  const left = createHash("sha256").update(given).digest();
  const right = createHash("sha256").update(expected).digest();
  return timingSafeEqual(left, right);
}
