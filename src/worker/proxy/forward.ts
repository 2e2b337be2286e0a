/**
 * @module
 * The last hop of the proxy: send the prepared request to the gateway and hand its answer back
 * with the status and `cf-aig-*` headers intact, the body streaming, and every secret of the call
 * scrubbed from headers and body (a body in an encoding the runtime did not decode is refused,
 * `content-encoding.ts`). One Analytics Engine point is written when the body has been
 * passed on (or failed, or the app stopped reading). An unreachable gateway is a 502, never a 500.
 *
 * A call may have several attempts, one per key of its provider's pool: when the provider (not the
 * gateway's own limits) answers 429, 401 or 403 and another attempt remains, that answer is
 * dropped and the next key is sent at once (the key's condition is recorded through the
 * {@link CallObserver}; a `Retry-After` is the key's, never waited for); the app sees the last
 * answer only. With a deadline (`cf-aig-request-timeout`, `call-deadline.ts`) every attempt gets
 * only the time that remains, no attempt starts once it is spent (the answer in hand goes to the
 * app), and running out while waiting is a 504 `request_timeout`.
 */

import type { CallPoint } from "../analytics-schema.ts";
import { WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import { type CallFacts, callPoint, writeCallPoint } from "./analytics-point.ts";
import { unscopeEventId } from "./app-scope.ts";
import { sendAttempt } from "./attempt.ts";
import { type CallDeadline, remainingMs, requestTimedOut } from "./call-deadline.ts";
import { scrubbableEncoding, undecodedEncoding } from "./content-encoding.ts";
import { SecretScrubber } from "./scrub.ts";

/** A request ready to go upstream. */
export interface ForwardRequest {
  readonly target: string;
  /** One per key to try, in order; a body must be replayable (text) when there are several. */
  readonly attempts: readonly RequestInit[];
  readonly facts: CallFacts;
  /**
   * Every secret an answer may carry (`secretsOf`): injected keys, every value the ledger lists,
   * the app token, the gateway token; read while the call is upstream.
   */
  readonly secrets: Promise<readonly (string | undefined)[]>;
  readonly observer?: CallObserver;
  /** The call's time limit (from `cf-aig-request-timeout`), null when the app set none. */
  readonly deadline: CallDeadline | null;
}

/** Told what became of a call, to keep each key's condition and usage. */
export interface CallObserver {
  /**
   * Attempt `index` was answered (undefined: the gateway was not reached), before anything is
   * passed on; `byGateway`: the gateway itself refused it (its limits, its token), which says
   * nothing about the key.
   */
  answered(index: number, upstream: Response | undefined, byGateway: boolean): void;
  /** The call's point, once its body is done (tokens for `tpm`). */
  completed(point: CallPoint): void;
}

/** Statuses after which the next key of the pool is sent instead. */
const nextKeyStatuses = new Set([401, 403, 429]);

/** Up to this much of a successful JSON answer is kept to read its usage. */
const usageCopyBytes = 256 * 1024;
/** An answer of known length up to this size (and not a stream of events) is scrubbed whole. */
const wholeBodyBytes = 1024 * 1024;

/** Forwards one request and streams the scrubbed answer back. */
export async function forward(request: ForwardRequest, context: HandlerContext): Promise<Response> {
  const started = context.now();
  const config = context.settings.config;
  // The point is built and written after the answer has gone, off the call's path.
  const record = (outcome: Parameters<typeof callPoint>[1]) =>
    context.execution.waitUntil(
      Promise.resolve().then(() => {
        const point = callPoint(request.facts, outcome, config);
        writeCallPoint(context.events, point, context.logger);
        request.observer?.completed(point);
      }),
    );
  const { deadline } = request;
  let upstream: Response | undefined;
  for (const [index, init] of request.attempts.entries()) {
    const attempt = await sendAttempt(request.target, init, deadline, context);
    if (attempt.kind !== "answered") {
      const timedOut = attempt.kind === "timed-out";
      if (!timedOut || attempt.sent) request.observer?.answered(index, undefined, false);
      record({
        response: undefined,
        latencyMs: context.now() - started,
        errorCode: timedOut ? "request_timeout" : "gateway_unreachable",
      });
      if (timedOut && deadline !== null) {
        throw requestTimedOut(deadline, attempt.sent ? index + 1 : index);
      }
      throw new WorkerError({
        status: 502,
        code: "gateway_unreachable",
        message: "The gateway could not be reached; check GATEWAY_URL and try again.",
      });
    }
    upstream = attempt.response;
    request.observer?.answered(index, upstream, attempt.byGateway);
    const keyRefused = nextKeyStatuses.has(upstream.status) && !attempt.byGateway;
    // Once the call's time is spent no other key is sent: the answer in hand goes to the app.
    const timeLeft = deadline === null || remainingMs(deadline, context.now()) > 0;
    if (!keyRefused || !timeLeft || index === request.attempts.length - 1) break;
    upstream.body?.cancel().catch(() => undefined);
  }
  if (upstream === undefined) throw new Error("forward() needs at least one attempt");
  const latencyMs = context.now() - started;
  if (upstream.body !== null && !scrubbableEncoding(upstream.headers)) {
    // Still encoded: its secrets cannot be found, so none of it goes to the app.
    upstream.body.cancel().catch(() => undefined);
    record({ response: upstream, latencyMs, errorCode: "unsupported_encoding" });
    throw undecodedEncoding();
  }
  let secrets: readonly (string | undefined)[];
  try {
    secrets = await request.secrets;
  } catch {
    // Without the list of secrets nothing can be checked, so nothing is passed on.
    upstream.body?.cancel().catch(() => undefined);
    record({ response: upstream, latencyMs, errorCode: "key_store_unavailable" });
    throw new WorkerError({
      status: 503,
      code: "key_store_unavailable",
      message: "The Worker could not read its key records to check the answer; try again.",
    });
  }
  const scrubber = new SecretScrubber(secrets);
  const headers = scrubber.headers(upstream.headers);
  unscopeEventId(headers, request.facts.app);
  const servedCopy = headers.get("cf-aig-step");
  if (request.facts.stepOf !== undefined && servedCopy !== null && /^\d+$/.test(servedCopy)) {
    // The gateway counts the steps it was sent (one per key); the app counts its own steps.
    headers.set("cf-aig-step", String(request.facts.stepOf(Number(servedCopy))));
  }
  const init = { status: upstream.status, statusText: upstream.statusText, headers };
  if (upstream.body === null) {
    record({ response: upstream, latencyMs });
    return new Response(null, init);
  }
  const type = upstream.headers.get("content-type") ?? "";
  const readsUsage = upstream.ok && type.includes("application/json");
  const length = Number(upstream.headers.get("content-length") ?? Number.NaN);
  if (!type.includes("text/event-stream") && length >= 0 && length <= wholeBodyBytes) {
    // A short answer of known length: read it whole, scrub it once, answer with its new length.
    let bytes: Uint8Array;
    try {
      bytes = scrubber.bytes(new Uint8Array(await upstream.arrayBuffer()));
    } catch {
      record({ response: upstream, latencyMs, errorCode: "incomplete_body" });
      throw new WorkerError({
        status: 502,
        code: "gateway_unreachable",
        message: "The gateway's answer broke off; try again.",
      });
    }
    record({ response: upstream, latencyMs, body: readsUsage ? bytes : null });
    // fetch decoded a compressed answer, and the runtime encodes it again on the way out (with
    // a length of its own); a plain one gets its true length.
    if (headers.has("content-encoding")) headers.delete("content-length");
    else headers.set("content-length", String(bytes.byteLength));
    return new Response(bytes as Uint8Array<ArrayBuffer>, init);
  }
  // Scrubbing may change the body's length.
  headers.delete("content-length");
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
