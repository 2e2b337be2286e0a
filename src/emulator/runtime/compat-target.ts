/**
 * @module
 * A compat (OpenAI-shaped) request aimed at one provider and model: the provider's own body,
 * endpoint and auth header, and the conversions of its answer back to OpenAI's shape. A 2xx whose
 * body is not an answer counts as a failed attempt (so a fallback, if any, is tried), since
 * nothing has been sent to the client yet.
 */
import type { IncomingMessage } from "node:http";
import { getProvider, isKnownProvider, type ProviderAdapter } from "../../providers/index.ts";
import { GatewayRequestError } from "../errors.ts";
import { headerValue } from "../http/io.ts";
import type { UpstreamResponse } from "./attempt.ts";
import { cachePolicyFor } from "./cache-policy.ts";
import { type CompatRequest, toOpenAiCompletion, toOpenAiError } from "./compat-convert.ts";
import { createOpenAiStreamConverter } from "./compat-stream.ts";
import type { GatewayCall } from "./gateway-call.ts";
import { resolveRetryPolicy } from "./retry.ts";
import type { StepTarget } from "./step-runner.ts";
import type { StreamConverter } from "./stream-pipe.ts";
import { forwardedHeaders } from "./upstreams.ts";

export interface CompatTarget extends StepTarget {
  /** Set when the provider streams in another format than OpenAI's. */
  readonly streamConverter?: StreamConverter;
  /** The error the client gets for a non-2xx upstream response (OpenAI's error shape). */
  toClientError(response: UpstreamResponse): UpstreamResponse;
}

/** Per-node overrides from a dynamic route's model element. */
export interface CompatTargetOverrides {
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
}

/** Builds the target for `provider/model`. @throws GatewayRequestError 400 for an unknown provider. */
export function buildCompatTarget(
  call: GatewayCall,
  compat: CompatRequest,
  provider: string,
  model: string,
  overrides: CompatTargetOverrides = {},
): CompatTarget {
  if (!isKnownProvider(provider)) {
    throw GatewayRequestError.invalid(
      `Unknown provider "${provider}" in model "${provider}/${model}": use e.g. openai/gpt-4o-mini, anthropic/claude-sonnet-4-5, workers-ai/@cf/meta/llama-3.1-8b-instruct.`,
    );
  }
  const { services, gateway, request } = call;
  const adapter = getProvider(provider);
  const endpoint = adapter.endpoint(model, compat.chat);
  const bodyJson =
    adapter.format === "openai"
      ? { ...compat.raw, model }
      : adapter.requestBody(model, compat.chat);
  const body = Buffer.from(JSON.stringify(bodyJson));
  const headers = providerHeaders(request, adapter);
  const directives = call.directives;
  const cache = cachePolicyFor(call, directives, {
    provider: `compat/${provider}`,
    method: "POST",
    endpoint,
    body,
  });
  const id = () => services.generateId().toLowerCase();
  const created = () => Math.floor(services.now() / 1000);
  const settings = gateway.settings;
  const streaming = compat.chat.stream === true;
  return {
    provider,
    model,
    endpoint,
    request: { url: services.upstreams.url(provider, endpoint), method: "POST", headers, body },
    streaming,
    timeoutMs: overrides.timeoutMs ?? directives.requestTimeoutMs ?? services.defaultTimeoutMs,
    retry: resolveRetryPolicy(
      { maxAttempts: overrides.maxAttempts },
      {
        maxAttempts: directives.maxAttempts,
        delayMs: directives.retryDelayMs,
        backoff: directives.backoff,
      },
      {
        maxAttempts: settings.retry_max_attempts,
        delayMs: settings.retry_delay,
        backoff: settings.retry_backoff,
      },
    ),
    ...(cache ? { cache } : {}),
    ...(streaming && adapter.format !== "openai"
      ? { streamConverter: createOpenAiStreamConverter(model, id(), created()) }
      : {}),
    checkBuffered(response) {
      let completion: Record<string, unknown>;
      try {
        const result = adapter.parseResponse(response.body.bytes.toString("utf8"), model);
        if (adapter.format === "openai") return { ok: true, response };
        completion = toOpenAiCompletion(result, model, id(), created());
      } catch (error) {
        const message = `${adapter.displayName} answered ${response.status} without a usable answer: ${error instanceof Error ? error.message : String(error)}`;
        return {
          ok: false,
          reason: "invalid_response",
          response: jsonResponse(502, toOpenAiError("invalid_response", message)),
        };
      }
      return { ok: true, response: jsonResponse(response.status, completion) };
    },
    toClientError(response) {
      if (adapter.format === "openai" || response.body.kind !== "buffered") return response;
      const info = adapter.parseError(response.status, response.body.bytes.toString("utf8"));
      return jsonResponse(response.status, toOpenAiError(info.type, info.message));
    },
  };
}

/** The caller's headers for the provider: `Authorization: Bearer <key>` becomes its auth header. */
function providerHeaders(
  request: IncomingMessage,
  adapter: ProviderAdapter,
): Record<string, string> {
  const pairs: [string, string][] = [];
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    pairs.push([request.rawHeaders[index]!, request.rawHeaders[index + 1]!]);
  }
  const headers = forwardedHeaders(
    pairs.filter(([name]) => name.toLowerCase() !== "authorization"),
  );
  Object.assign(headers, adapter.defaultHeaders ?? {});
  const authorization = headerValue(request, "authorization");
  const key = authorization?.replace(/^\s*bearer\s+/i, "").trim();
  if (key) Object.assign(headers, adapter.authHeaders(key));
  headers["content-type"] = "application/json";
  return headers;
}

function jsonResponse(
  status: number,
  body: unknown,
): UpstreamResponse & {
  body: { kind: "buffered"; bytes: Buffer };
} {
  return {
    kind: "response",
    status,
    headers: new Headers({ "content-type": "application/json" }),
    body: { kind: "buffered", bytes: Buffer.from(JSON.stringify(body)) },
  };
}
