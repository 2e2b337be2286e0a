/**
 * @module
 * The error bodies the emulated gateway answers with, shaped like Cloudflare's.
 *
 * Gateway endpoints (`/v1/...`) answer `AiGatewayError` bodies:
 * `{"success":false,"result":[],"messages":[],"error":[{"code":2009,"message":"Unauthorized"}],
 * "name":"AiGatewayError","httpCode":401,"internalCode":2009}`.
 * REST endpoints (`/client/v4/...`) answer the API envelope with `errors` instead.
 *
 * Codes 2001, 2003, 2005, 2009, 2040 and 2041 are the ones Cloudflare has been seen to send
 * (aig-spec §8; observations, not documentation); the others are the emulator's inventions for
 * cases Cloudflare does not document, listed as such in docs/emulator.md.
 */
import { StepwiseError } from "../errors/index.ts";

/** Stable `AiGatewayError` codes. */
export const gatewayErrorCodes = {
  /** 400: the gateway does not exist in the account. */
  gatewayNotFound: 2001,
  /** 429: the gateway's rate limit (or a dynamic route's rate node) refused the request. */
  rateLimited: 2003,
  /** 400: `dynamic/{route}` names no route of this gateway. */
  routeNotFound: 2005,
  /** 400: malformed body, bad `cf-aig-*` header, unknown provider (emulator choice). */
  invalidRequest: 2008,
  /** 401: missing or wrong `cf-aig-authorization` on an authenticated gateway. */
  unauthorized: 2009,
  /** 502: the upstream could not be reached or cut the connection (emulator choice). */
  upstreamUnreachable: 2010,
  /** 504: the upstream sent no first byte within the request timeout (emulator choice). */
  upstreamTimeout: 2011,
  /** 413: request body over the size limit (emulator choice). */
  payloadTooLarge: 2012,
  /** 404/405: no such endpoint or method (emulator choice). */
  notFound: 2013,
  /** 400: a third-party call without credentials where they are required (emulator choice). */
  providerCredentialsRequired: 2014,
  /** 503: the provider refused Cloudflare's credentials under Unified Billing (emulator choice). */
  unifiedBillingRejected: 2015,
  /** 424 (provider endpoints): Guardrails blocked the prompt (set-up-guardrail.mdx). */
  promptBlocked: 2016,
  /** 424 (provider endpoints), 422 (`/run`): Guardrails blocked the response, or `/run` content. */
  responseBlocked: 2017,
  /** 402: no credits left: Unified Billing, or the Guardrails scanner (set-up-guardrail.mdx). */
  insufficientCredits: 2021,
  /** 503: the Guardrails scanner is unavailable and a Block rule applies (set-up-guardrail.mdx). */
  guardrailsUnavailable: 7013,
  /** 500: a bug in the emulator; never expected (emulator choice). */
  internal: 2099,
  /** 429: a spend limit rule is over budget. */
  spendLimitExceeded: 2041,
  /** 400: no stored (BYOK) key for the provider under the requested alias. */
  byokAliasNotFound: 2040,
  /** 403: a `Host` that is not a loopback name (DNS rebinding; emulator choice). */
  hostNotAllowed: 2042,
} as const;

/** An `AiGatewayError` body and its HTTP status. */
export interface GatewayErrorResponse {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Builds an `AiGatewayError` response body. */
export function gatewayError(status: number, code: number, message: string): GatewayErrorResponse {
  return {
    status,
    body: {
      success: false,
      result: [],
      messages: [],
      error: [{ code, message }],
      name: "AiGatewayError",
      httpCode: status,
      internalCode: code,
    },
  };
}

/** Thrown inside request handling to answer with an `AiGatewayError`; never escapes the server. */
export class GatewayRequestError extends StepwiseError {
  static override readonly kind: string = "stepwise.GatewayRequestError";
  readonly status: number;
  readonly gatewayCode: number;

  constructor(status: number, gatewayCode: number, message: string) {
    super({ code: "emulator_gateway_error", message });
    this.name = "GatewayRequestError";
    this.status = status;
    this.gatewayCode = gatewayCode;
  }

  /** A 400 `invalidRequest` error with a message that says what to fix. */
  static invalid(message: string): GatewayRequestError {
    return new GatewayRequestError(400, gatewayErrorCodes.invalidRequest, message);
  }

  toResponse(): GatewayErrorResponse {
    return gatewayError(this.status, this.gatewayCode, this.message);
  }
}

/** Cloudflare API (REST) error codes the emulator uses. */
export const restErrorCodes = {
  /** Unknown URI (Cloudflare: "No route for that URI"). */
  noRoute: 7000,
  /** Unknown object id (Cloudflare: "Could not route to ..., perhaps your object identifier is invalid?"). */
  invalidIdentifier: 7003,
  /** Missing `Authorization` header (Cloudflare: 9106). */
  missingAuth: 9106,
  /** An API token that does not authenticate (Cloudflare: 10000, "Authentication error"). */
  authenticationError: 10000,
  /** Invalid request body or query. */
  invalidRequest: 7001,
  /** The object exists already. */
  conflict: 7002,
} as const;

/** Thrown inside REST handling to answer with the API envelope's `errors`. */
export class RestRequestError extends StepwiseError {
  static override readonly kind: string = "stepwise.RestRequestError";
  readonly status: number;
  readonly restCode: number;

  constructor(status: number, restCode: number, message: string) {
    super({ code: "emulator_rest_error", message });
    this.name = "RestRequestError";
    this.status = status;
    this.restCode = restCode;
  }
}

/** A failure starting the emulator: bad options or an upstream that cannot be resolved. */
export class EmulatorError extends StepwiseError {
  static override readonly kind: string = "stepwise.EmulatorError";
  constructor(message: string, cause?: unknown) {
    super({ code: "emulator_invalid_options", message, cause });
    this.name = "EmulatorError";
  }
}

/** Why the Secrets Store refused a write; the REST layer answers it as a 400, 404 or 409. */
export class SecretsStoreRefusal extends StepwiseError {
  static override readonly kind: string = "stepwise.SecretsStoreRefusal";
  readonly reason: "not_found" | "conflict" | "too_large";

  constructor(reason: "not_found" | "conflict" | "too_large", message: string) {
    super({ code: `secrets_store_${reason}`, message });
    this.name = "SecretsStoreRefusal";
    this.reason = reason;
  }
}
