/**
 * @module
 * The last hop of the proxy: send the prepared request to the gateway, write one Analytics
 * Engine event, and hand the gateway's response back as it is (status, `cf-aig-*` headers and a
 * streaming body). An unreachable gateway is a 502, never a 500.
 */
import { WorkerError } from "./errors.ts";
import { type ProxyEvent, writeProxyEvent } from "./events.ts";
import type { HandlerContext } from "./handler-context.ts";

/** The event fields that depend on the request (and on the response's served-step headers). */
export type EventFields = Omit<ProxyEvent, "status" | "latencyMs" | "errorCode" | "cacheStatus">;

/** Forwards one request and streams the response back. */
export async function forward(
  target: string,
  init: RequestInit,
  context: HandlerContext,
  describe: (response: Response | undefined) => EventFields,
): Promise<Response> {
  const started = context.now();
  let upstream: Response;
  try {
    upstream = await context.fetch(target, { ...init, redirect: "manual" });
  } catch {
    writeProxyEvent(
      context.events,
      {
        ...describe(undefined),
        status: 0,
        latencyMs: context.now() - started,
        errorCode: "gateway_unreachable",
        cacheStatus: null,
      },
      context.logger,
    );
    throw new WorkerError({
      status: 502,
      code: "gateway_unreachable",
      message: "The gateway could not be reached; check GATEWAY_URL and try again.",
    });
  }
  writeProxyEvent(
    context.events,
    {
      ...describe(upstream),
      status: upstream.status,
      latencyMs: context.now() - started,
      errorCode: upstream.ok ? null : `http_${upstream.status}`,
      cacheStatus: upstream.headers.get("cf-aig-cache-status"),
    },
    context.logger,
  );
  // The body streams through untouched; status and every header (cf-aig-*) are kept.
  return new Response(upstream.body, {
    status: upstream.status,
    statusText: upstream.statusText,
    headers: upstream.headers,
  });
}

/** `cf-aig-step` as a number; null when absent or not a number. */
export function readStep(response: Response | undefined): number | null {
  const value = response?.headers.get("cf-aig-step");
  return value != null && /^\d+$/.test(value.trim()) ? Number(value.trim()) : null;
}

/** The model a universal step asks for: `query.model`, else its endpoint (Workers AI). */
export function modelOf(step: { endpoint: string; query?: unknown }): string {
  const query = step.query;
  if (typeof query === "object" && query !== null && "model" in query) {
    const model = (query as { model: unknown }).model;
    if (typeof model === "string") return model;
  }
  return step.endpoint;
}
