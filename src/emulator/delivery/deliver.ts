/**
 * @module
 * Sends the serving step's response to the client with the gateway's `cf-aig-*` headers, logs
 * it, stores it in the cache when it may be, and charges its cost. Streams go through
 * `stream-pipe.ts` (a stream cut mid-answer breaks the client connection); a stream that dies
 * before its first body byte never gets here, it is a network error that falls back (see
 * `transport/attempt.ts`).
 */
import type { CachedResponse } from "../features/response-cache.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import type { CachePolicy, ResponseUsage, StreamConverter } from "../step/step-target.ts";
import { headerOf, type UpstreamResponse } from "../transport/attempt.ts";
import { passedResponseHeaders } from "../transport/upstreams.ts";
import { cacheTokensOfBody, pricesCacheTokens } from "./cache-tokens.ts";
import { type DeliveredStep, recordStep, type ServingStep } from "./log-writer.ts";
import { pipeConverted, pipeRaw } from "./stream-pipe.ts";
import { StreamUsage, usageFromBody } from "./usage.ts";

export interface DeliverOptions {
  readonly attempts: number;
  /** Store a buffered 2xx under this policy. */
  readonly cache?: CachePolicy;
  readonly streaming?: boolean;
  /** Convert a stream instead of passing it through. */
  readonly streamConverter?: StreamConverter;
  /** Tokens of a buffered answer already read (compat's check); otherwise read from the body. */
  readonly usage?: ResponseUsage;
  /** What a gateway answer in the provider's place is logged as (`guardrail_prompt_blocked`). */
  readonly error?: string;
}

/**
 * Response headers as `writeHead` takes them without building an object: a flat list of names
 * and values (repeated names such as `set-cookie` stay separate).
 */
export type HeaderList = string[];

/**
 * The upstream's passed headers, then the `cf-aig-*` ones. Upstream `cf-aig-*` headers are never
 * passed, so the gateway's are the only ones of their names.
 */
export function responseHeaderList(
  call: GatewayCall,
  serving: ServingStep,
  logId: string,
  cacheStatus: "HIT" | "MISS",
  passed: readonly (readonly [string, string])[] = [],
): HeaderList {
  const list: HeaderList = [];
  for (const [name, value] of passed) list.push(name, value);
  list.push(
    "cf-aig-step",
    String(serving.step),
    "cf-aig-provider",
    serving.provider,
    "cf-aig-model",
    serving.model,
    "cf-aig-log-id",
    logId,
    "cf-aig-request-id",
    call.requestId,
    "cf-aig-cache-status",
    cacheStatus,
    // The caller's own event id comes back; otherwise the request id (changelog 2026-10-08: a
    // request answered in one step carries one value in all three headers).
    "cf-aig-event-id",
    call.directives.eventId ?? call.requestId,
  );
  return list;
}

/** Delivers an upstream response (success, or the error that ends the chain). */
export async function deliverResponse(
  call: GatewayCall,
  serving: ServingStep,
  upstream: UpstreamResponse,
  options: DeliverOptions,
): Promise<DeliveredStep> {
  const logId = call.nextLogId();
  const passed = passedResponseHeaders(upstream.headers);
  const contentType = headerOf(upstream.headers, "content-type");
  const response = call.response;
  if (upstream.body.kind === "buffered") {
    const bytes = upstream.body.bytes;
    if (!response.headersSent && !response.destroyed) {
      const headers = responseHeaderList(call, serving, logId, "MISS", passed);
      headers.push("content-length", String(bytes.length));
      response.writeHead(upstream.status, headers);
      response.end(bytes);
    }
    const ok = upstream.status < 300;
    let usage = !ok
      ? { tokensIn: null, tokensOut: null }
      : (options.usage ?? usageFromBody(serving.provider, serving.model, bytes));
    if (ok && options.usage === undefined && pricesCacheTokens(call.directives.customCost)) {
      usage = { ...usage, ...cacheTokensOfBody(serving.provider, bytes) };
    }
    if (ok && options.cache?.use && !options.streaming) {
      const { services } = call;
      const entry: CachedResponse = {
        status: upstream.status,
        headers: passed,
        body: bytes,
        provider: serving.provider,
        model: serving.model,
        ...usage,
        expiresAt: services.now() + options.cache.ttlSeconds * 1000,
      };
      services.cache.set(options.cache.key, entry);
    }
    return recordStep(call, serving, {
      logId,
      status: upstream.status,
      success: ok,
      cached: false,
      usage,
      attempts: options.attempts,
      responseBytes: bytes.length,
      responseBody: bytes,
      ...(contentType ? { responseContentType: contentType } : {}),
      ...(ok ? {} : { error: options.error ?? `http_${upstream.status}` }),
    });
  }
  const usage = new StreamUsage(serving.provider, pricesCacheTokens(call.directives.customCost));
  const converter = options.streamConverter;
  const headers = responseHeaderList(
    call,
    serving,
    logId,
    "MISS",
    converter ? passed.filter(([name]) => name !== "content-type") : passed,
  );
  if (converter) headers.push("content-type", converter.contentType);
  if (response.destroyed) {
    upstream.body.abort();
    return recordStep(call, serving, {
      logId,
      status: upstream.status,
      success: false,
      cached: false,
      usage,
      attempts: options.attempts,
      responseBytes: 0,
      error: "client_closed",
    });
  }
  response.writeHead(upstream.status, headers);
  const piped = converter
    ? await pipeConverted(call, upstream.body, usage, converter)
    : await pipeRaw(call, upstream.body, usage);
  // A stream that ended cleanly without the provider's end marker is passed on as it came (the
  // client sees no end marker either) but logged as a failure.
  const error =
    piped.error ??
    (upstream.status < 300 && usage.parses && !usage.sawEnd ? "stream_incomplete" : undefined);
  const ok = upstream.status < 300 && error === undefined;
  return recordStep(call, serving, {
    logId,
    status: upstream.status,
    success: ok,
    cached: false,
    usage,
    attempts: options.attempts,
    responseBytes: piped.bytes,
    responseBody: piped.head,
    ...(contentType ? { responseContentType: contentType } : {}),
    ...(error ? { error } : {}),
  });
}

/** Delivers a cached response (`cf-aig-cache-status: HIT`). */
export function deliverCached(
  call: GatewayCall,
  serving: ServingStep,
  entry: CachedResponse,
): DeliveredStep {
  const logId = call.nextLogId();
  if (!call.response.headersSent && !call.response.destroyed) {
    const headers = responseHeaderList(call, serving, logId, "HIT", entry.headers);
    headers.push("content-length", String(entry.body.length));
    call.response.writeHead(entry.status, headers);
    call.response.end(entry.body);
  }
  const contentType = entry.headers.find(([name]) => name === "content-type")?.[1];
  return recordStep(call, serving, {
    logId,
    status: entry.status,
    success: true,
    cached: true,
    usage: { tokensIn: entry.tokensIn, tokensOut: entry.tokensOut },
    attempts: 0,
    responseBytes: entry.body.length,
    responseBody: entry.body,
    ...(contentType ? { responseContentType: contentType } : {}),
  });
}
