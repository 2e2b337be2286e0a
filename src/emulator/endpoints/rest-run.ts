/**
 * @module
 * The REST API's envelope endpoint, `POST /client/v4/accounts/{account}/ai/run` with
 * `{ model, input }` (usage/rest-api.mdx: "Accepts any model with its per-model schema.
 * Model-specific parameters go inside input."), and the Workers AI path that "continues to
 * work", `/ai/run/@cf/{model}` with the input as the body. `input` is sent to the provider as its
 * own request body (with `model` set); a whole answer comes back in the Cloudflare API envelope
 * `{ result, success, errors, messages }` (Workers AI answers in it already), a stream as the
 * provider sends it. Dynamic routes are served on `/ai/v1/chat/completions`, not here (the
 * emulator's choices, in docs/emulator.md).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { getProvider } from "../../providers/index.ts";
import { cacheTokensOf, pricesCacheTokens } from "../delivery/cache-tokens.ts";
import type { ServingStep } from "../delivery/log-writer.ts";
import { serveOutcome } from "../delivery/serve-outcome.ts";
import { GatewayRequestError } from "../errors.ts";
import { parseJson, readRequestBody } from "../http/io.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import { asksForStream } from "../request/model-name.ts";
import { openRestCall } from "../request/rest-call.ts";
import { readRestModel } from "../request/rest-model.ts";
import type { EmulatorServices } from "../services.ts";
import { cachePolicyFor } from "../step/cache-policy.ts";
import { applyCredential, restCredentialRefusal } from "../step/credentials.ts";
import { stepRetryPolicy } from "../step/retry.ts";
import { isCredentialStatus, runStep } from "../step/step-runner.ts";
import type { ResponseUsage, StepTarget } from "../step/step-target.ts";
import { jsonUpstreamResponse } from "../transport/attempt.ts";
import { forwardedHeaders } from "../transport/upstreams.ts";
import { requireGatewayForWorkersAi, restCallerHeaders } from "./rest-chat.ts";

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Handles `POST .../ai/run` (`{ model, input }`). */
export async function handleRestRun(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  params: { account: string },
): Promise<void> {
  const call = openRestCall(services, request, response, params.account);
  const body = await readRequestBody(request);
  const json = parseJson(body);
  const envelope = json.ok ? json.value : undefined;
  if (!isObject(envelope) || typeof envelope.model !== "string" || !isObject(envelope.input)) {
    throw GatewayRequestError.invalid(
      'Malformed run request: the body must be {"model": "author/model", "input": {...}} with the model\'s own parameters in input.',
    );
  }
  const model = readRestModel(envelope.model);
  if (model.kind === "dynamic") {
    throw GatewayRequestError.invalid(
      `Dynamic routes are served on /ai/v1/chat/completions, not /ai/run: send {"model": "${envelope.model.slice(0, 200)}", "messages": [...]} there.`,
    );
  }
  requireGatewayForWorkersAi(call, model);
  await serveRun(call, model.provider, model.model, envelope.input, body);
}

/** Handles `POST .../ai/run/@cf/{model}`, the Workers AI path, with the input as the body. */
export async function handleRestRunModel(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  params: { account: string; model: string },
): Promise<void> {
  const call = openRestCall(services, request, response, params.account);
  const body = await readRequestBody(request);
  const json = parseJson(body);
  if (!params.model.startsWith("@") || !json.ok || !isObject(json.value)) {
    throw GatewayRequestError.invalid(
      "Malformed Workers AI request: POST /ai/run/@cf/{model} with the model's input as a JSON object.",
    );
  }
  await serveRun(call, "workers-ai", params.model, json.value, body);
}

async function serveRun(
  call: GatewayCall,
  provider: string,
  model: string,
  input: Fields,
  requestBody: Buffer,
): Promise<void> {
  const { services, gateway, directives } = call;
  const adapter = getProvider(provider);
  const streaming = input.stream === true;
  const endpoint = adapter.endpoint(model, {
    messages: [],
    ...(streaming ? { stream: true } : {}),
  });
  const upstreamBody = Buffer.from(
    JSON.stringify(provider === "workers-ai" ? input : { ...input, model }),
  );
  const headers = forwardedHeaders(restCallerHeaders(call));
  Object.assign(headers, adapter.defaultHeaders ?? {});
  headers["content-type"] = "application/json";
  const credential = applyCredential(call, headers, provider, directives.byokAlias);
  const settings = gateway.settings;
  const cache = cachePolicyFor(call, directives, {
    provider: `run/${provider}`,
    method: "POST",
    endpoint,
    body: upstreamBody,
  });
  const target: StepTarget = {
    provider,
    model,
    endpoint,
    request: {
      url: services.upstreams.url(provider, endpoint),
      method: "POST",
      headers,
      body: upstreamBody,
    },
    credential,
    runApi: true,
    streaming: streaming || asksForStream(endpoint, input),
    timeoutMs: directives.requestTimeoutMs ?? services.defaultTimeoutMs,
    retry: stepRetryPolicy(undefined, directives, settings),
    ...(cache ? { cache } : {}),
    checkBuffered(response) {
      const text = response.body.bytes.toString("utf8");
      let answer: unknown;
      let usage: ResponseUsage;
      try {
        answer = JSON.parse(text);
        const result = adapter.parseResponse(answer, model);
        usage = { tokensIn: result.usage.tokensIn, tokensOut: result.usage.tokensOut };
        if (pricesCacheTokens(directives.customCost)) {
          usage = { ...usage, ...cacheTokensOf(provider, answer) };
        }
      } catch {
        // Not a chat answer (an image, audio, embeddings): passed on, its tokens unknown.
        usage = { tokensIn: null, tokensOut: null };
      }
      if (provider === "workers-ai" || answer === undefined) return { ok: true, response, usage };
      const wrapped = { result: answer, success: true, errors: [], messages: [] };
      return { ok: true, response: jsonUpstreamResponse(response.status, wrapped), usage };
    },
    toClientError(response) {
      return isCredentialStatus(response.status)
        ? restCredentialRefusal(response, credential)
        : response;
    },
  };
  const serving: ServingStep = {
    step: 0,
    provider,
    model,
    endpoint,
    requestType: "ai-run",
    credential,
    requestBytes: requestBody.length,
    requestBody,
    requestContentType: "application/json",
  };
  await serveOutcome(call, target, serving, await runStep(call, target, { last: true }));
}
