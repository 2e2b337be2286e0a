/**
 * @module
 * The emulator's request listener: routes `/v1/...` to the gateway endpoints and `/client/v4/...`
 * to the REST subset, and turns every refusal into Cloudflare's error body. Nothing a client sends
 * can crash the server: unexpected errors become a 500 body and go to `onError`, and a response
 * that already started is cut rather than left hanging.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { handleCompat } from "./endpoints/compat.ts";
import { handleProviderNative } from "./endpoints/provider-native.ts";
import {
  chatCompletionsEndpoint,
  handleRestChat,
  messagesEndpoint,
  responsesEndpoint,
} from "./endpoints/rest-chat.ts";
import { handleRestRun, handleRestRunModel } from "./endpoints/rest-run.ts";
import { handleUniversal } from "./endpoints/universal.ts";
import {
  GatewayRequestError,
  gatewayError,
  gatewayErrorCodes,
  RestRequestError,
  restErrorCodes,
} from "./errors.ts";
import { restErrorBody, sendGatewayError, sendJson, sendRestError } from "./http/io.ts";
import { isLoopbackHost } from "./http/loopback-host.ts";
import { requestPath, requestUrl } from "./http/request-path.ts";
import { Router } from "./http/router.ts";
import { handleRest } from "./rest/index.ts";
import type { EmulatorServices } from "./services.ts";

type RestAiHandler = (
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  params: { account: string; model: string },
) => Promise<void>;

const ai = "/client/v4/accounts/:account/ai";

/** The REST API's model endpoints (changelog 2026-05-21); the rest of `/client/v4/` is `rest/`. */
const restAiRouter = new Router<RestAiHandler>()
  .add("POST", `${ai}/run`, handleRestRun)
  .add("POST", `${ai}/run/*model`, handleRestRunModel)
  .add("POST", `${ai}/v1/chat/completions`, (services, request, response, params) =>
    handleRestChat(services, request, response, params, chatCompletionsEndpoint),
  )
  .add("POST", `${ai}/v1/responses`, (services, request, response, params) =>
    handleRestChat(services, request, response, params, responsesEndpoint),
  )
  .add("POST", `${ai}/v1/messages`, (services, request, response, params) =>
    handleRestChat(services, request, response, params, messagesEndpoint),
  );

type GatewayHandler = (
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  params: { account: string; gateway: string; provider: string },
) => Promise<void>;

const gatewayRouter = new Router<GatewayHandler>()
  .add("POST", "/v1/:account/:gateway/compat/chat/completions", handleCompat)
  .add("*", "/v1/:account/:gateway/:provider/*path", handleProviderNative)
  .add("POST", "/v1/:account/:gateway", handleUniversal);

/** The listener for `http.createServer`. */
export function createRequestListener(services: EmulatorServices): RequestListener {
  return (request, response) => {
    handle(services, request, response).catch((error: unknown) =>
      answerError(services, request, response, error),
    );
  };
}

async function handle(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const target = request.url ?? "/";
  const path = requestPath(target);
  if (!isLoopbackHost(request.headers.host)) throw hostNotAllowed(path, request.headers.host);
  if (path.startsWith("/client/v4/")) {
    const found = restAiRouter.lookup(request.method ?? "GET", path);
    if (found.kind === "match") {
      const { account = "", model = "" } = found.match.params;
      await found.match.handler(services, request, response, { account, model });
      return;
    }
    if (found.kind === "method-not-allowed") {
      throw new GatewayRequestError(
        405,
        gatewayErrorCodes.notFound,
        `Method ${request.method} not allowed here; use ${found.allowed.join(", ")}.`,
      );
    }
    await handleRest(services, request, response, requestUrl(target));
    return;
  }
  if (path.startsWith("/v1/")) {
    const found = gatewayRouter.lookup(request.method ?? "GET", path);
    if (found.kind === "match") {
      const { account = "", gateway = "", provider = "" } = found.match.params;
      await found.match.handler(services, request, response, { account, gateway, provider });
      return;
    }
    throw found.kind === "method-not-allowed"
      ? new GatewayRequestError(
          405,
          gatewayErrorCodes.notFound,
          `Method ${request.method} not allowed here; use ${found.allowed.join(", ")}.`,
        )
      : new GatewayRequestError(
          404,
          gatewayErrorCodes.notFound,
          "No gateway endpoint here: use /v1/{account}/{gateway}, /v1/{account}/{gateway}/{provider}/{path} or /v1/{account}/{gateway}/compat/chat/completions.",
        );
  }
  if (path === "/" && (request.method === "GET" || request.method === "HEAD")) {
    sendJson(response, 200, {
      name: "stepwise-emulator",
      account: services.config.accountId,
      gateways: services.gateways.list().map((gateway) => gateway.id),
      rest: `${services.publicUrl()}/client/v4`,
    });
    return;
  }
  sendJson(response, 404, restErrorBody(restErrorCodes.noRoute, "No route for that URI"));
}

/**
 * The refusal of a request whose `Host` is not a loopback name: every path, since the legacy
 * endpoints spend stored keys and create `default`, and the REST API changes gateway settings.
 */
function hostNotAllowed(path: string, host: string | undefined): Error {
  const shown = host === undefined ? "no Host header" : `Host "${host.slice(0, 100)}"`;
  const message = `The emulator answers only requests to a loopback name (127.0.0.1, localhost or [::1], with its port); this request has ${shown}. Use the URL stepwise dev prints.`;
  return path.startsWith("/client/v4/")
    ? new RestRequestError(403, gatewayErrorCodes.hostNotAllowed, message)
    : new GatewayRequestError(403, gatewayErrorCodes.hostNotAllowed, message);
}

function answerError(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  error: unknown,
): void {
  if (response.headersSent) {
    // The answer already started; cutting the connection is the only honest signal left.
    response.destroy();
    if (!(GatewayRequestError.isInstance(error) || RestRequestError.isInstance(error))) {
      services.onError(error);
    }
    return;
  }
  if (RestRequestError.isInstance(error)) sendRestError(response, error);
  else if (GatewayRequestError.isInstance(error)) sendGatewayError(response, error.toResponse());
  else {
    services.onError(error);
    const body = gatewayError(500, gatewayErrorCodes.internal, "Internal emulator error");
    if ((request.url ?? "").startsWith("/client/v4/")) {
      sendJson(response, 500, restErrorBody(gatewayErrorCodes.internal, "Internal emulator error"));
    } else sendGatewayError(response, body);
  }
}
