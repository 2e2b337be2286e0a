/**
 * @module
 * The REST subset under `/client/v4/accounts/{account}/`: AI Gateway's gateways, logs (with their
 * bodies, feedback and datasets), dynamic routes and BYOK provider configs, and the Secrets Store
 * that holds BYOK keys, in the Cloudflare API envelope, enough for the official `cloudflare` SDK
 * (pointed at the emulator with `baseURL`) to manage them.
 *
 * The caller authenticates as on Cloudflare, with an API token: here the emulator's gateway token
 * (what `stepwise dev` prints), in `Authorization: Bearer` (or `X-Auth-Key`), compared in constant
 * time. Without one the answer is Cloudflare's 400 (code 9106), with another token 401 (code
 * 10000): a local process that does not hold the token cannot read logs or change gateway
 * settings. The account must be the config's `accountId`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { RestRequestError, restErrorCodes } from "../errors.ts";
import { headerValue, sendJson } from "../http/io.ts";
import { Router } from "../http/router.ts";
import { tokenMatches } from "../request/gateway-call.ts";
import type { EmulatorServices } from "../services.ts";
import {
  createDataset,
  deleteDataset,
  getDataset,
  listDatasets,
  updateDataset,
} from "./datasets.ts";
import {
  createGateway,
  deleteGateway,
  getGateway,
  listGateways,
  updateGateway,
} from "./gateways.ts";
import { deleteLogs, editLog, getLog, getLogRequest, getLogResponse, listLogs } from "./logs.ts";
import {
  createProviderConfig,
  deleteProviderConfig,
  listProviderConfigs,
} from "./provider-configs.ts";
import { RawRestBody, type RestHandler } from "./rest-context.ts";
import {
  createDeployment,
  createRoute,
  createVersion,
  deleteRoute,
  getRoute,
  getVersion,
  listDeployments,
  listRoutes,
  listVersions,
  renameRoute,
} from "./routes.ts";
import {
  createSecrets,
  createStore,
  deleteSecret,
  deleteStore,
  editSecret,
  getSecret,
  getStore,
  listSecrets,
  listStores,
} from "./secrets.ts";

const base = "/client/v4/accounts/:account/ai-gateway/gateways";
const stores = "/client/v4/accounts/:account/secrets_store/stores";

const router = new Router<RestHandler>()
  .add("GET", base, listGateways)
  .add("POST", base, createGateway)
  .add("GET", `${base}/:gateway`, getGateway)
  .add("PUT", `${base}/:gateway`, updateGateway)
  .add("DELETE", `${base}/:gateway`, deleteGateway)
  .add("GET", `${base}/:gateway/logs`, listLogs)
  .add("DELETE", `${base}/:gateway/logs`, deleteLogs)
  .add("GET", `${base}/:gateway/logs/:log`, getLog)
  .add("PATCH", `${base}/:gateway/logs/:log`, editLog)
  .add("GET", `${base}/:gateway/logs/:log/request`, getLogRequest)
  .add("GET", `${base}/:gateway/logs/:log/response`, getLogResponse)
  .add("GET", `${base}/:gateway/datasets`, listDatasets)
  .add("POST", `${base}/:gateway/datasets`, createDataset)
  .add("GET", `${base}/:gateway/datasets/:dataset`, getDataset)
  .add("PUT", `${base}/:gateway/datasets/:dataset`, updateDataset)
  .add("DELETE", `${base}/:gateway/datasets/:dataset`, deleteDataset)
  .add("GET", `${base}/:gateway/provider_configs`, listProviderConfigs)
  .add("POST", `${base}/:gateway/provider_configs`, createProviderConfig)
  .add("DELETE", `${base}/:gateway/provider_configs/:config`, deleteProviderConfig)
  .add("GET", stores, listStores)
  .add("POST", stores, createStore)
  .add("GET", `${stores}/:store`, getStore)
  .add("DELETE", `${stores}/:store`, deleteStore)
  .add("GET", `${stores}/:store/secrets`, listSecrets)
  .add("POST", `${stores}/:store/secrets`, createSecrets)
  .add("GET", `${stores}/:store/secrets/:secret`, getSecret)
  .add("PATCH", `${stores}/:store/secrets/:secret`, editSecret)
  .add("DELETE", `${stores}/:store/secrets/:secret`, deleteSecret)
  .add("GET", `${base}/:gateway/routes`, listRoutes)
  .add("POST", `${base}/:gateway/routes`, createRoute)
  .add("GET", `${base}/:gateway/routes/:route`, getRoute)
  .add("PATCH", `${base}/:gateway/routes/:route`, renameRoute)
  .add("DELETE", `${base}/:gateway/routes/:route`, deleteRoute)
  .add("GET", `${base}/:gateway/routes/:route/versions`, listVersions)
  .add("POST", `${base}/:gateway/routes/:route/versions`, createVersion)
  .add("GET", `${base}/:gateway/routes/:route/versions/:version`, getVersion)
  .add("GET", `${base}/:gateway/routes/:route/deployments`, listDeployments)
  .add("POST", `${base}/:gateway/routes/:route/deployments`, createDeployment)
  .add("GET", `${base}/:gateway/url/:provider`, (context) => ({
    success: true,
    errors: [],
    messages: [],
    result: `${context.services.publicUrl()}/v1/${context.params.account}/${context.params.gateway}/${context.params.provider}`,
  }));

/** Handles a request under `/client/v4/`. Throws `RestRequestError` for refusals. */
export async function handleRest(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const found = router.lookup(request.method ?? "GET", url.pathname);
  if (found.kind === "not-found") {
    throw new RestRequestError(404, restErrorCodes.noRoute, "No route for that URI");
  }
  if (found.kind === "method-not-allowed") {
    throw new RestRequestError(
      405,
      restErrorCodes.noRoute,
      `Method ${request.method} not allowed; use ${found.allowed.join(", ")}`,
    );
  }
  const given = ["authorization", "x-auth-key"]
    .map((name) => headerValue(request, name))
    .filter((value) => value !== undefined && value !== "");
  if (given.length === 0) {
    throw new RestRequestError(
      400,
      restErrorCodes.missingAuth,
      "Missing X-Auth-Key, X-Auth-Email or Authorization headers: send Authorization: Bearer <token> (the emulator's gateway token, which stepwise dev prints).",
    );
  }
  if (!given.some((value) => tokenMatches(value ?? "", services.gatewayToken))) {
    throw new RestRequestError(
      401,
      restErrorCodes.authenticationError,
      "Authentication error: the API token is not valid here (the emulator accepts its gateway token, which stepwise dev prints).",
    );
  }
  const { params, handler } = found.match;
  if (params.account !== services.config.accountId) {
    throw new RestRequestError(
      404,
      restErrorCodes.invalidIdentifier,
      `Could not route to ${url.pathname}, perhaps your object identifier is invalid? (this emulator serves account ${services.config.accountId})`,
    );
  }
  const body = await handler({ services, request, params, query: url.searchParams });
  if (body instanceof RawRestBody) {
    response.writeHead(200, {
      "content-type": body.contentType,
      "content-length": String(body.bytes.length),
    });
    response.end(body.bytes);
    return;
  }
  sendJson(response, 200, body);
}
