/**
 * @module
 * A client's chat request (OpenAI-shaped by default, or another client format) aimed at one
 * provider and model: the provider's own body, endpoint and key, and the conversions of its
 * answer back to the client's shape (none when the provider speaks it). A 2xx whose body is not
 * an answer counts as a failed attempt (so a fallback, if any, is tried), since nothing has been
 * sent to the client yet. On the REST API a provider refusing the key is answered as Cloudflare
 * does (see `step/credentials.ts`). Used by the compat endpoint, universal steps with
 * `provider: "compat"`, dynamic routes' model elements and the REST API's SDK-shaped endpoints.
 */
import { getProvider, isKnownProvider } from "../../providers/index.ts";
import { cacheTokensOfBody, pricesCacheTokens } from "../delivery/cache-tokens.ts";
import { GatewayRequestError } from "../errors.ts";
import type { ClientFormat } from "../formats/client-format.ts";
import type { Directives } from "../request/directives.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import { cachePolicyFor } from "../step/cache-policy.ts";
import {
  applyCredential,
  type CredentialSource,
  credentialHeaderNames,
  restCredentialRefusal,
} from "../step/credentials.ts";
import { stepRetryPolicy } from "../step/retry.ts";
import { isCredentialStatus } from "../step/step-runner.ts";
import type { ResponseUsage, StepTarget } from "../step/step-target.ts";
import { jsonUpstreamResponse } from "../transport/attempt.ts";
import { forwardedHeaders } from "../transport/upstreams.ts";
import { openAiChatFormat } from "./compat-format.ts";
import type { CompatRequest } from "./openai-shape.ts";

/** Where a compat target's settings and key come from. */
export interface CompatTargetOptions {
  /** The `cf-aig-*` directives in force (request, or request merged with a universal step's). */
  readonly directives: Directives;
  /** The caller's headers (compat request, or universal step), forwarded minus `cf-aig-*`. */
  readonly callerHeaders: readonly (readonly [string, string])[];
  /**
   * `caller-or-stored`: an `Authorization: Bearer <key>` from the caller is the provider's key,
   * else the stored one. `stored-only` (dynamic routes): only the stored key; the caller's
   * `Authorization` is never sent upstream.
   */
  readonly credentials: "caller-or-stored" | "stored-only";
  /** A dynamic route's model element settings, which beat the directives. */
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
  /** The shape the client speaks; OpenAI chat completions by default. */
  readonly format?: ClientFormat;
}

/** Builds the target for `provider/model`. @throws GatewayRequestError 400 for an unknown provider. */
export function buildCompatTarget(
  call: GatewayCall,
  compat: CompatRequest,
  provider: string,
  model: string,
  options: CompatTargetOptions,
): StepTarget {
  if (!isKnownProvider(provider) || provider === "compat") {
    throw GatewayRequestError.invalid(
      `Unknown provider "${provider}" in model "${provider}/${model}": use e.g. openai/gpt-4o-mini, anthropic/claude-sonnet-4-5, workers-ai/@cf/meta/llama-3.1-8b-instruct.`,
    );
  }
  const { services, gateway } = call;
  const adapter = getProvider(provider);
  const format = options.format ?? openAiChatFormat;
  const passThrough = adapter.format === format.passThrough;
  const endpoint = adapter.endpoint(model, compat.chat);
  const bodyJson = passThrough ? { ...compat.raw, model } : adapter.requestBody(model, compat.chat);
  const body = Buffer.from(JSON.stringify(bodyJson));
  const { headers, credential } = upstreamHeaders(call, provider, options);
  const { directives } = options;
  const cache = cachePolicyFor(call, directives, {
    provider: `compat/${provider}`,
    method: "POST",
    endpoint,
    body,
  });
  const id = () => services.generateId().toLowerCase();
  const created = () => Math.floor(services.now() / 1000);
  const streaming = compat.chat.stream === true;
  return {
    provider,
    model,
    endpoint,
    request: { url: services.upstreams.url(provider, endpoint), method: "POST", headers, body },
    credential,
    streaming,
    timeoutMs: options.timeoutMs ?? directives.requestTimeoutMs ?? services.defaultTimeoutMs,
    retry: stepRetryPolicy({ maxAttempts: options.maxAttempts }, directives, gateway.settings),
    ...(cache ? { cache } : {}),
    ...(streaming && !passThrough
      ? { streamConverter: format.stream(model, id(), created()) }
      : {}),
    checkBuffered(response) {
      let completion: Record<string, unknown>;
      let usage: ResponseUsage;
      try {
        const text = response.body.bytes.toString("utf8");
        const result = adapter.parseResponse(text, model);
        // The answer is parsed once: delivery logs these tokens instead of parsing it again.
        usage = { tokensIn: result.usage.tokensIn, tokensOut: result.usage.tokensOut };
        if (pricesCacheTokens(directives.customCost)) {
          usage = { ...usage, ...cacheTokensOfBody(provider, text) };
        }
        if (passThrough) return { ok: true, response, usage };
        completion = format.answer(result, model, id(), created());
      } catch (error) {
        const message = `${adapter.displayName} answered ${response.status} without a usable answer: ${error instanceof Error ? error.message : String(error)}`;
        return {
          ok: false,
          reason: "invalid_response",
          response: jsonUpstreamResponse(502, format.error("invalid_response", message, 502)),
        };
      }
      return { ok: true, response: jsonUpstreamResponse(response.status, completion), usage };
    },
    toClientError(response) {
      if (call.surface === "rest" && isCredentialStatus(response.status)) {
        return restCredentialRefusal(response, credential);
      }
      if (passThrough || response.body.kind !== "buffered") return response;
      const info = adapter.parseError(response.status, response.body.bytes.toString("utf8"));
      return jsonUpstreamResponse(
        response.status,
        format.error(info.type, info.message, response.status),
      );
    },
  };
}

/**
 * The caller's headers for the provider, with the right key: the caller's
 * `Authorization: Bearer <key>` becomes the provider's own auth header (`x-api-key`…) unless keys
 * are stored-only, then `applyCredential` picks between it and the stored key.
 */
function upstreamHeaders(
  call: GatewayCall,
  provider: string,
  options: CompatTargetOptions,
): { headers: Record<string, string>; credential: CredentialSource } {
  const adapter = getProvider(provider);
  const credentialNames = new Set([...credentialHeaderNames(provider), "authorization"]);
  const headers = forwardedHeaders(
    options.callerHeaders.filter(([name]) => !credentialNames.has(name.toLowerCase())),
  );
  Object.assign(headers, adapter.defaultHeaders ?? {});
  const authorization = options.callerHeaders.find(
    ([name]) => name.toLowerCase() === "authorization",
  )?.[1];
  const key = authorization?.replace(/^\s*bearer\s+/i, "").trim();
  const callerKey =
    options.credentials === "caller-or-stored" && key && !call.gatewayTokenInAuthorization;
  if (callerKey) {
    for (const [name, value] of Object.entries(adapter.authHeaders(key))) {
      headers[name.toLowerCase()] = value;
    }
  }
  const credential = applyCredential(call, headers, provider, options.directives.byokAlias);
  headers["content-type"] = "application/json";
  return { headers, credential };
}
