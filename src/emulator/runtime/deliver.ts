/**
 * @module
 * Sends the serving step's response to the client with the gateway's headers, logs it, stores it
 * in the cache when it may be, and charges its cost.
 *
 * Streams pass through unbuffered: each upstream chunk is written as it arrives (a tee parses the
 * events for usage). If the upstream connection dies mid-stream, the gateway destroys the client
 * connection instead of ending the response: the client sees a broken transfer, never a clean end
 * that could be taken for a complete answer. (Bytes already sent cannot be taken back, so the
 * gateway cannot fall back at that point; a stream that dies before its first body byte is a
 * network error and does fall back, see `attempt.ts`.)
 */
import type { OutgoingHttpHeaders } from "node:http";
import { parseSseStream, type StreamDelta } from "../../providers/index.ts";
import type { GatewayErrorResponse } from "../errors.ts";
import type { CachedResponse } from "../features/response-cache.ts";
import { waitForDrain } from "../http/io.ts";
import type { StreamedBody, UpstreamResponse } from "./attempt.ts";
import type { GatewayCall } from "./gateway-call.ts";
import { type DeliveredStep, recordStep, type ServingStep } from "./log-writer.ts";
import type { CachePolicy, StepFailure } from "./step-runner.ts";
import { failureError } from "./step-runner.ts";
import { passedResponseHeaders } from "./upstreams.ts";
import { StreamUsage, usageFromBody } from "./usage.ts";

/** Turns a provider's stream deltas into another wire format (compat: OpenAI chunks). */
export interface StreamConverter {
  readonly contentType: string;
  convert(deltas: readonly StreamDelta[]): string;
}

export interface DeliverOptions {
  readonly attempts: number;
  /** Store a buffered 2xx under this policy. */
  readonly cache?: CachePolicy;
  readonly streaming?: boolean;
  /** Convert a stream instead of passing it through. */
  readonly streamConverter?: StreamConverter;
}

/** The `cf-aig-*` response headers. */
export function gatewayHeaders(
  call: GatewayCall,
  serving: ServingStep,
  logId: string,
  cacheStatus: "HIT" | "MISS",
): Record<string, string> {
  const headers: Record<string, string> = {
    "cf-aig-step": String(serving.step),
    "cf-aig-provider": serving.provider,
    "cf-aig-model": serving.model,
    "cf-aig-log-id": logId,
    "cf-aig-request-id": call.requestId,
    "cf-aig-cache-status": cacheStatus,
  };
  if (call.directives.eventId !== undefined) headers["cf-aig-event-id"] = call.directives.eventId;
  return headers;
}

function headerObject(
  passed: readonly (readonly [string, string])[],
  gateway: Record<string, string>,
): OutgoingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of passed) {
    const existing = headers[name];
    headers[name] =
      existing === undefined
        ? value
        : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  return { ...headers, ...gateway };
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
  const contentType = upstream.headers.get("content-type") ?? undefined;
  const response = call.response;
  if (upstream.body.kind === "buffered") {
    const bytes = upstream.body.bytes;
    const headers = headerObject(passed, gatewayHeaders(call, serving, logId, "MISS"));
    if (!response.headersSent && !response.destroyed) {
      response.writeHead(upstream.status, { ...headers, "content-length": String(bytes.length) });
      response.end(bytes);
    }
    const ok = upstream.status < 300;
    const usage = ok
      ? usageFromBody(serving.provider, serving.model, bytes)
      : { tokensIn: null, tokensOut: null };
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
      ...(contentType ? { responseContentType: contentType } : {}),
      ...(ok ? {} : { error: `http_${upstream.status}` }),
    });
  }
  const usage = new StreamUsage(serving.provider);
  const converter = options.streamConverter;
  const headers = headerObject(
    converter ? passed.filter(([name]) => name !== "content-type") : passed,
    gatewayHeaders(call, serving, logId, "MISS"),
  );
  if (converter) headers["content-type"] = converter.contentType;
  if (response.destroyed) {
    upstream.body.abort();
    upstream.body.stream.cancel().catch(() => undefined);
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
    ...(contentType ? { responseContentType: contentType } : {}),
    ...(error ? { error } : {}),
  });
}

interface Piped {
  readonly bytes: number;
  readonly error?: "stream_cut" | "client_closed";
}

async function pipeRaw(call: GatewayCall, body: StreamedBody, usage: StreamUsage): Promise<Piped> {
  const [raw, forParsing] = body.stream.tee();
  const parsing = (async () => {
    try {
      for await (const event of parseSseStream(forParsing)) usage.feed(event);
    } catch {
      // The raw branch sees the same failure and reports it.
    }
  })();
  const reader = raw.getReader();
  const response = call.response;
  let bytes = 0;
  let error: Piped["error"];
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      if (response.destroyed) {
        error = "client_closed";
        body.abort();
        break;
      }
      bytes += next.value.length;
      if (!response.write(next.value)) await waitForDrain(response);
    }
  } catch {
    error = call.signal.aborted && response.destroyed ? "client_closed" : "stream_cut";
  }
  await parsing;
  finish(call, error);
  return error === undefined ? { bytes } : { bytes, error };
}

async function pipeConverted(
  call: GatewayCall,
  body: StreamedBody,
  usage: StreamUsage,
  converter: StreamConverter,
): Promise<Piped> {
  const response = call.response;
  let bytes = 0;
  let error: Piped["error"];
  try {
    for await (const event of parseSseStream(body.stream)) {
      if (response.destroyed) {
        error = "client_closed";
        body.abort();
        break;
      }
      const text = converter.convert(usage.feed(event));
      if (text === "") continue;
      bytes += Buffer.byteLength(text);
      if (!response.write(text)) await waitForDrain(response);
    }
  } catch {
    error = call.signal.aborted && response.destroyed ? "client_closed" : "stream_cut";
  }
  finish(call, error);
  return error === undefined ? { bytes } : { bytes, error };
}

/** Ends the client response cleanly, or breaks the connection after an upstream cut. */
function finish(call: GatewayCall, error: Piped["error"]): void {
  const response = call.response;
  if (response.destroyed) return;
  if (error === "stream_cut") response.destroy();
  else response.end();
}

/** Delivers a cached response (`cf-aig-cache-status: HIT`). */
export function deliverCached(
  call: GatewayCall,
  serving: ServingStep,
  entry: CachedResponse,
): DeliveredStep {
  const logId = call.nextLogId();
  const headers = headerObject(entry.headers, gatewayHeaders(call, serving, logId, "HIT"));
  if (!call.response.headersSent && !call.response.destroyed) {
    call.response.writeHead(entry.status, {
      ...headers,
      "content-length": String(entry.body.length),
    });
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
    ...(contentType ? { responseContentType: contentType } : {}),
  });
}

/** Delivers the failure of the last step tried: its upstream response, or a gateway error. */
export async function deliverFailure(
  call: GatewayCall,
  serving: ServingStep,
  failure: StepFailure,
  attempts: number,
): Promise<DeliveredStep> {
  if (failure.kind === "response") {
    return deliverResponse(call, serving, failure.response, { attempts });
  }
  return deliverGatewayError(call, serving, failureError(failure)!, attempts, failureCode(failure));
}

/** Sends a gateway error with the step headers, and logs it. */
export function deliverGatewayError(
  call: GatewayCall,
  serving: ServingStep,
  error: GatewayErrorResponse,
  attempts: number,
  code: string,
): DeliveredStep {
  const logId = call.nextLogId();
  const text = JSON.stringify(error.body);
  if (!call.response.headersSent && !call.response.destroyed) {
    call.response.writeHead(error.status, {
      ...gatewayHeaders(call, serving, logId, "MISS"),
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(text)),
    });
    call.response.end(text);
  }
  return recordStep(call, serving, {
    logId,
    status: error.status,
    success: false,
    cached: false,
    usage: { tokensIn: null, tokensOut: null },
    attempts,
    responseBytes: Buffer.byteLength(text),
    responseContentType: "application/json",
    error: code,
  });
}

/** Logs a failed step that a later step replaces (nothing is sent to the client). */
export function recordFailure(
  call: GatewayCall,
  serving: ServingStep,
  failure: StepFailure,
  attempts: number,
): void {
  const status =
    failure.kind === "response" ? failure.response.status : failureError(failure)!.status;
  recordStep(call, serving, {
    logId: call.nextLogId(),
    status,
    success: false,
    cached: false,
    usage: { tokensIn: null, tokensOut: null },
    attempts,
    responseBytes:
      failure.kind === "response" && failure.response.body.kind === "buffered"
        ? failure.response.body.bytes.length
        : 0,
    error: failureCode(failure),
  });
}

function failureCode(failure: StepFailure): string {
  switch (failure.kind) {
    case "response":
      return failure.error;
    case "network-error":
      return "network_error";
    case "timeout":
      return "timeout";
    case "refused":
      return failure.reason;
  }
}
