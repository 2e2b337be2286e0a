/**
 * @module
 * `/v1/{account}/{gateway}/{provider}/{path}`: the provider's own API through the gateway. The
 * request (method, headers minus `cf-aig-*` and hop-by-hop ones, body) goes to the provider's
 * upstream with the gateway's retries, cache and logs; the answer comes back unchanged. No
 * fallback: there is one provider. A key stored for the provider (BYOK) is injected when the
 * caller sends none, or when `cf-aig-byok-alias` names one (see `step/credentials.ts`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServingStep } from "../delivery/log-writer.ts";
import { serveOutcome } from "../delivery/serve-outcome.ts";
import { headerValue, parseJson, rawHeaderPairs, readRequestBody } from "../http/io.ts";
import { openGatewayCall } from "../request/gateway-call.ts";
import { asksForStream, modelOf } from "../request/model-name.ts";
import type { EmulatorServices } from "../services.ts";
import { cachePolicyFor } from "../step/cache-policy.ts";
import { applyCredential } from "../step/credentials.ts";
import { stepRetryPolicy } from "../step/retry.ts";
import { runStep } from "../step/step-runner.ts";
import type { StepTarget } from "../step/step-target.ts";
import { forwardedHeaders, normaliseEndpoint } from "../transport/upstreams.ts";

/** Handles a provider-native request. */
export async function handleProviderNative(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  params: { account: string; gateway: string; provider: string },
): Promise<void> {
  const call = openGatewayCall(services, request, response, params);
  const endpoint = rawEndpoint(request.url ?? "/");
  const url = services.upstreams.url(params.provider, endpoint);
  const method = (request.method ?? "GET").toUpperCase();
  const body = method === "GET" || method === "HEAD" ? undefined : await readRequestBody(request);
  const json = body && body.length > 0 ? parseJson(body) : { ok: false as const };
  const parsedBody = json.ok ? json.value : undefined;
  const directives = call.directives;
  const headers = forwardedHeaders(rawHeaderPairs(request.rawHeaders));
  const credential = applyCredential(call, headers, params.provider, directives.byokAlias);
  const logPath = normaliseEndpoint(params.provider, endpoint);
  const cache = cachePolicyFor(call, directives, {
    provider: params.provider,
    method,
    endpoint: logPath,
    body,
  });
  const target: StepTarget = {
    provider: params.provider,
    model: modelOf(params.provider, logPath, parsedBody),
    endpoint: logPath,
    request: { url, method, headers, body },
    credential,
    streaming: asksForStream(logPath, parsedBody),
    timeoutMs: directives.requestTimeoutMs ?? services.defaultTimeoutMs,
    // No step of its own: the request's headers, then the gateway's settings.
    retry: stepRetryPolicy(undefined, directives, call.gateway.settings),
    ...(cache ? { cache } : {}),
  };
  const contentType = headerValue(request, "content-type");
  const serving: ServingStep = {
    step: 0,
    provider: target.provider,
    model: target.model,
    endpoint: target.endpoint,
    requestType: "provider",
    credential: target.credential,
    requestBytes: body?.length ?? 0,
    ...(body ? { requestBody: body } : {}),
    ...(contentType ? { requestContentType: contentType } : {}),
  };
  await serveOutcome(call, target, serving, await runStep(call, target, { last: true }));
}

/** The raw (still percent-encoded) path after `/v1/{account}/{gateway}/{provider}/`, with query. */
function rawEndpoint(requestUrl: string): string {
  const queryStart = requestUrl.indexOf("?");
  const path = queryStart === -1 ? requestUrl : requestUrl.slice(0, queryStart);
  const query = queryStart === -1 ? "" : requestUrl.slice(queryStart);
  const segments = path.split("/").filter((segment) => segment !== "");
  return segments.slice(4).join("/") + query;
}
