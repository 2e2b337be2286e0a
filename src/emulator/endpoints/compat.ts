/**
 * @module
 * `POST /v1/{account}/{gateway}/compat/chat/completions`: OpenAI's chat completions shape for any
 * provider (`model: "anthropic/claude-sonnet-4-5"`), or a dynamic route (`"dynamic/{route}"`).
 * Requests are converted to the provider's own body; answers (and errors) come back in OpenAI's
 * shape, streams included (OpenAI-format providers stream through unchanged). The gateway token
 * may come as `cf-aig-authorization` or, as in Cloudflare's OpenAI SDK examples, as the SDK's
 * `apiKey` (`Authorization: Bearer <token>`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { buildCompatTarget } from "../compat/compat-target.ts";
import {
  type CompatRequest,
  parseCompatRequest,
  splitCompatModel,
} from "../compat/openai-shape.ts";
import type { ServingStep } from "../delivery/log-writer.ts";
import { serveOutcome } from "../delivery/serve-outcome.ts";
import { serveDynamicRoute } from "../dynamic-routes/run-route.ts";
import { GatewayRequestError } from "../errors.ts";
import { parseJson, rawHeaderPairs, readRequestBody } from "../http/io.ts";
import { openGatewayCall } from "../request/gateway-call.ts";
import type { EmulatorServices } from "../services.ts";
import { runStep } from "../step/step-runner.ts";

/** Handles a compat request. */
export async function handleCompat(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  params: { account: string; gateway: string },
): Promise<void> {
  const call = openGatewayCall(services, request, response, params, { acceptAuthorization: true });
  const body = await readRequestBody(request);
  const compat = readCompatBody(body);
  const model = splitCompatModel(compat.model);
  if (model.kind === "dynamic") {
    await serveDynamicRoute(call, compat, model.route);
    return;
  }
  const target = buildCompatTarget(call, compat, model.provider, model.model, {
    directives: call.directives,
    callerHeaders: rawHeaderPairs(request.rawHeaders),
    credentials: "caller-or-stored",
  });
  const serving: ServingStep = {
    step: 0,
    provider: model.provider,
    model: model.model,
    endpoint: target.endpoint,
    requestType: "compat",
    credential: target.credential,
    requestBytes: body.length,
    requestBody: body,
    requestContentType: "application/json",
  };
  await serveOutcome(call, target, serving, await runStep(call, target, { last: true }));
}

/** @throws GatewayRequestError 400 for a body that is not a chat completions request. */
export function readCompatBody(body: Buffer): CompatRequest {
  const json = parseJson(body);
  if (!json.ok) {
    throw GatewayRequestError.invalid(
      "Malformed chat completions request: the body must be JSON with model and messages.",
    );
  }
  return parseCompatRequest(json.value);
}
