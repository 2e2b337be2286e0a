/**
 * @module
 * The REST API's model endpoints in an SDK's shape (usage/rest-api.mdx):
 * `POST /client/v4/accounts/{account}/ai/v1/chat/completions` (OpenAI chat completions),
 * `/ai/v1/responses` (OpenAI Responses) and `/ai/v1/messages` (Anthropic Messages). The model is
 * `author/model`, `@cf/...` or `dynamic/<route>`; the request is converted to the provider's own
 * body (or passed as sent when the provider speaks the client's shape) and the answer, error or
 * stream comes back in the client's shape, with the gateway's logs, cache, rate and spend limits
 * as on the legacy endpoints.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { openAiChatFormat } from "../compat/compat-format.ts";
import { buildCompatTarget } from "../compat/compat-target.ts";
import { parseCompatRequest } from "../compat/openai-shape.ts";
import type { RequestType, ServingStep } from "../delivery/log-writer.ts";
import { serveOutcome } from "../delivery/serve-outcome.ts";
import { deliverRouteFailure, runDynamicRoute } from "../dynamic-routes/run-route.ts";
import { GatewayRequestError } from "../errors.ts";
import { anthropicMessagesFormat, parseMessagesRequest } from "../formats/anthropic-messages.ts";
import type { ClientFormat, CompatRequest } from "../formats/client-format.ts";
import { openAiResponsesFormat, parseResponsesRequest } from "../formats/openai-responses.ts";
import { headerValue, parseJson, rawHeaderPairs, readRequestBody } from "../http/io.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import { openRestCall } from "../request/rest-call.ts";
import { type RestModel, readRestModel } from "../request/rest-model.ts";
import type { EmulatorServices } from "../services.ts";
import { runStep } from "../step/step-runner.ts";

/** One of the SDK-shaped endpoints: its client format and how its body is read. */
export interface RestChatEndpoint {
  readonly requestType: RequestType;
  readonly format: ClientFormat;
  readonly parse: (value: unknown) => CompatRequest;
  /** Names the body's shape in the error for a body that is not JSON. */
  readonly shape: string;
}

export const chatCompletionsEndpoint: RestChatEndpoint = {
  requestType: "ai-chat-completions",
  format: openAiChatFormat,
  parse: parseCompatRequest,
  shape: "an OpenAI chat completions request with model and messages",
};

export const responsesEndpoint: RestChatEndpoint = {
  requestType: "ai-responses",
  format: openAiResponsesFormat,
  parse: parseResponsesRequest,
  shape: "an OpenAI Responses request with model and input",
};

export const messagesEndpoint: RestChatEndpoint = {
  requestType: "ai-messages",
  format: anthropicMessagesFormat,
  parse: parseMessagesRequest,
  shape: "an Anthropic Messages request with model, max_tokens and messages",
};

/** Handles one request to an SDK-shaped REST endpoint. */
export async function handleRestChat(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  params: { account: string },
  endpoint: RestChatEndpoint,
): Promise<void> {
  const call = openRestCall(services, request, response, params.account);
  const body = await readRequestBody(request);
  const json = parseJson(body);
  if (!json.ok)
    throw GatewayRequestError.invalid(`Malformed request: the body must be ${endpoint.shape}.`);
  const compat = endpoint.parse(json.value);
  const model = readRestModel(compat.model);
  const callerHeaders = restCallerHeaders(call);
  const { format } = endpoint;
  if (model.kind === "dynamic") {
    const outcome = await runDynamicRoute(call, compat, model.route, {
      directives: call.directives,
      callerHeaders,
      last: true,
      format,
    });
    if (outcome.kind === "failed") await deliverRouteFailure(call, outcome);
    return;
  }
  requireGatewayForWorkersAi(call, model);
  const target = buildCompatTarget(call, compat, model.provider, model.model, {
    directives: call.directives,
    callerHeaders,
    credentials: "caller-or-stored",
    format,
  });
  const serving: ServingStep = {
    step: 0,
    provider: model.provider,
    model: model.model,
    endpoint: target.endpoint,
    requestType: endpoint.requestType,
    credential: target.credential,
    requestBytes: body.length,
    requestBody: body,
    requestContentType: "application/json",
  };
  await serveOutcome(call, target, serving, await runStep(call, target, { last: true }));
}

/** The caller's headers minus the one that carried the API token (never forwarded). */
export function restCallerHeaders(call: GatewayCall): [string, string][] {
  return rawHeaderPairs(call.request.rawHeaders).filter(
    ([name]) => name.toLowerCase() !== call.tokenHeader,
  );
}

/**
 * Workers AI models need `cf-aig-gateway-id` ("Workers AI requests always require this header").
 * @throws GatewayRequestError 400 without it.
 */
export function requireGatewayForWorkersAi(call: GatewayCall, model: RestModel): void {
  if (model.kind !== "provider" || model.provider !== "workers-ai") return;
  if (headerValue(call.request, "cf-aig-gateway-id") !== undefined) return;
  throw GatewayRequestError.invalid(
    `Workers AI models (${model.model.slice(0, 200)}) need the cf-aig-gateway-id header naming the gateway to route through, e.g. cf-aig-gateway-id: default.`,
  );
}
