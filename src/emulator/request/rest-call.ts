/**
 * @module
 * Opening a request to the REST API's AI endpoints (`/client/v4/accounts/{account}/ai/...`,
 * changelog 2026-05-21): the caller authenticates with the Cloudflare API token (the emulator's
 * gateway token) in `Authorization: Bearer`, and the gateway comes from `cf-aig-gateway-id`,
 * else the account's `default` gateway, created on first use. The Anthropic SDK sends its
 * `apiKey` as `x-api-key`, so the token is accepted there too; a token in `cf-aig-authorization`
 * leaves `Authorization` free for a provider key (the emulator's choices, in docs/emulator.md).
 * After that, the same checks as every gateway request (headers, rate limit).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayRequestError, RestRequestError, restErrorCodes } from "../errors.ts";
import { headerValue } from "../http/io.ts";
import type { EmulatorServices } from "../services.ts";
import {
  acceptGatewayCall,
  type GatewayCall,
  gatewayNotFound,
  tokenMatches,
} from "./gateway-call.ts";

/** Headers that may carry the API token, in the order they are tried. */
const tokenHeaders = ["cf-aig-authorization", "authorization", "x-api-key"] as const;

/**
 * Authenticates the caller and finds the gateway.
 * @throws RestRequestError 404 (7003) for another account, 400 (9106) without a token, 401
 *   (10000) for a wrong one; GatewayRequestError 400 (2001) for an unknown `cf-aig-gateway-id`.
 */
export function openRestCall(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  account: string,
): GatewayCall {
  if (account !== services.config.accountId) {
    throw new RestRequestError(
      404,
      restErrorCodes.invalidIdentifier,
      `Could not route to /client/v4/accounts/${account}/ai, perhaps your object identifier is invalid? (this emulator serves account ${services.config.accountId})`,
    );
  }
  const sent = tokenHeaders.filter((name) => headerValue(request, name) !== undefined);
  if (sent.length === 0) {
    throw new RestRequestError(
      400,
      restErrorCodes.missingAuth,
      "Missing X-Auth-Key, X-Auth-Email or Authorization headers: send Authorization: Bearer <Cloudflare API token>.",
    );
  }
  const tokenHeader = sent.find((name) =>
    tokenMatches(headerValue(request, name) ?? "", services.gatewayToken),
  );
  if (tokenHeader === undefined) {
    throw new RestRequestError(
      401,
      restErrorCodes.authenticationError,
      "Authentication error: the API token is not valid here (the emulator accepts its gateway token).",
    );
  }
  const gatewayId = headerValue(request, "cf-aig-gateway-id")?.trim();
  if (gatewayId === "") {
    throw GatewayRequestError.invalid(
      "The cf-aig-gateway-id header is empty; name a gateway or leave the header out for the default gateway.",
    );
  }
  const gateway =
    gatewayId === undefined || gatewayId === "default"
      ? services.gateways.ensureDefault()
      : services.gateways.get(gatewayId);
  if (gateway === undefined) throw gatewayNotFound({ account, gateway: gatewayId ?? "default" });
  return acceptGatewayCall(services, gateway, request, response, { surface: "rest", tokenHeader });
}
