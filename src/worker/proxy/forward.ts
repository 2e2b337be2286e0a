/**
 * @module
 * The last hop of the proxy: send the prepared request to the gateway and hand its answer back
 * with the status and `cf-aig-*` headers intact, the body streaming, and every secret of the call
 * scrubbed from headers and body. One Analytics Engine point is written when the body has been
 * passed on (or failed, or the app stopped reading). An unreachable gateway is a 502, never a 500.
 */
import { WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import { type CallFacts, callPoint, writeCallPoint } from "./call-point.ts";
import { SecretScrubber } from "./scrub.ts";

/** A request ready to go upstream. */
export interface ForwardRequest {
  readonly target: string;
  readonly init: RequestInit;
  readonly facts: CallFacts;
  /** Every secret the call carries: injected keys, the app token, the gateway token. */
  readonly secrets: readonly (string | undefined)[];
}

/** Up to this much of a successful JSON answer is kept to read its usage. */
const usageCopyBytes = 256 * 1024;

/** Forwards one request and streams the scrubbed answer back. */
export async function forward(request: ForwardRequest, context: HandlerContext): Promise<Response> {
  const started = context.now();
  const config = context.settings.config;
  const record = (outcome: Parameters<typeof callPoint>[1]) =>
    writeCallPoint(context.events, callPoint(request.facts, outcome, config), context.logger);
  let upstream: Response;
  try {
    upstream = await context.fetch(request.target, { ...request.init, redirect: "manual" });
  } catch {
    record({
      response: undefined,
      latencyMs: context.now() - started,
      errorCode: "gateway_unreachable",
    });
    throw new WorkerError({
      status: 502,
      code: "gateway_unreachable",
      message: "The gateway could not be reached; check GATEWAY_URL and try again.",
    });
  }
  const latencyMs = context.now() - started;
  const scrubber = new SecretScrubber(request.secrets);
  const headers = scrubber.headers(upstream.headers);
  const init = { status: upstream.status, statusText: upstream.statusText, headers };
  if (upstream.body === null) {
    record({ response: upstream, latencyMs });
    return new Response(null, init);
  }
  // Scrubbing may change the body's length.
  headers.delete("content-length");
  const readsUsage =
    upstream.ok && (upstream.headers.get("content-type") ?? "").includes("application/json");
  const body = scrubber.stream(
    upstream.body,
    ({ copy, failed }) =>
      record({
        response: upstream,
        latencyMs,
        ...(failed && upstream.ok ? { errorCode: "incomplete_stream" } : {}),
        body: readsUsage ? copy : null,
      }),
    readsUsage ? usageCopyBytes : 0,
  );
  return new Response(body, init);
}
