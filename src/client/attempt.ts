/**
 * @module
 * One attempt of a call, from the request to the answer read back. The request is the steps of
 * the attempt as a universal body (`routes/universal.ts`, each through its provider's adapter),
 * or, for a dynamic route, its name to the compat endpoint (on the REST API, `createRestClient`: the
 * dynamic route, or one step's `author/model`, to `/ai/v1/…`); it goes to `fetch`, or to the hedge
 * for a route with `hedge` (`hedge/hedge.ts`). The answer says which step served
 * (`cf-aig-step`, `cf-aig-provider`, `cf-aig-model`), the cache status and the log id; a 2xx
 * body is read whole through the provider's format (or as a stream, by the call's streamer) into
 * the normalised {@link ChatResponse}, with its cost when the client has prices. Anything else
 * comes back as a {@link Failure} for `failover.ts`; the attempt throws only the error that
 * halted its call.
 */

import { answerCost, stepNamedBy } from "../providers/cost.ts";
import { universalStep } from "../routes/universal.ts";
import { attemptHeaders } from "./attempt-headers.ts";
import type { BrokenStream, CallState, Failure, RouteEntry, StreamAnswer } from "./call-state.ts";
import { passedOver } from "./failover.ts";
import { sendHedged } from "./hedge/hedge.ts";
import { loadAdapter } from "./on-demand/index.ts";
import type { ChatResponse } from "./types.ts";

const noop = () => undefined;

/** Sends one attempt of `call` over the steps of `attempted` and reads its answer. */
export async function sendAttempt(
  call: CallState,
  attempted: readonly RouteEntry[],
  dynamic: boolean,
): Promise<ChatResponse | Failure> {
  const { adapters, client, streamer, request } = call;
  const { rest } = call.state;
  // The REST API takes one model a request: the route's dynamic route, else the first step's own.
  const order = rest && !dynamic ? attempted.slice(0, 1) : attempted;
  const url =
    rest?.url ??
    (dynamic ? `${call.state.gatewayUrl}/compat/chat/completions` : call.state.gatewayUrl);
  let body: unknown;
  if (dynamic || rest) {
    const slug = rest?.adapter ?? "compat";
    const format = adapters.get(slug) ?? (await loadAdapter(adapters, slug));
    const model = dynamic ? `dynamic/${call.options.route}` : rest!.modelOf(order[0]!);
    body = format.requestBody(model, request);
  } else {
    const steps = [];
    for (const entry of order) {
      // Each provider's adapter loads with its format's code on first use.
      const adapter = adapters.get(entry.provider) ?? (await loadAdapter(adapters, entry.provider));
      const sent = streamer
        ? streamer.request(entry, adapter, request, call.policy === "continue")
        : request;
      steps.push(universalStep(adapter, entry, sent, client));
    }
    body = steps;
  }
  // An attempt timeout aborts the attempt's request (headers, and a plain answer's body); a
  // stream's first-token timeout, when shorter, aborts it too while no headers have come.
  const firstTokenMs = streamer?.sent(order[0]);
  const stalls = firstTokenMs !== undefined && !(client.attemptTimeoutMs! <= firstTokenMs);
  const timeoutMs = stalls ? firstTokenMs : client.attemptTimeoutMs;
  const signal = timeoutMs === undefined ? call.options.signal : attemptSignal(call, timeoutMs);
  // A re-sent or reordered chain tells the gateway which route steps it holds (a first, in-order
  // request, most calls, sends the call's headers as they are).
  const headers =
    dynamic || (call.attempts <= 1 && inRouteOrder(order))
      ? call.headers
      : attemptHeaders(call, order);
  const init = { method: "POST", headers, body: JSON.stringify(body), signal };
  // A hedged route's universal attempt may also go to the steps after the first.
  const sent =
    call.route.config.hedge && !rest
      ? sendHedged(call, url, init, order)
      : (client.fetch ?? fetch)(url, init);
  let response: Response | undefined;
  try {
    response = await sent;
    if (call.halted !== undefined) throw call.halted;
    // A stream's attempt timeout ends with its headers; its first-token and idle timeouts follow.
    if (streamer !== undefined) clearTimeout(call.timer);
    return await readAnswer(call, response, order, dynamic, url);
  } catch (cause) {
    if (response === undefined) {
      sent.then((late) => late.body?.cancel().catch(noop), noop);
      call.status = 0;
      call.cacheStatus = call.logId = null;
    } else {
      response.body?.cancel().catch(noop);
    }
    if (call.halted !== undefined) throw call.halted;
    if (stalls && call.attemptTimeout?.signal.aborted) {
      return { entry: order[0], url, status: 0, kind: "transport", cause, firstTokenMs };
    }
    return { url, status: 0, kind: "transport", cause };
  } finally {
    clearTimeout(call.timer);
  }
}

/** True when `order` is the route's steps from the first, in order. */
function inRouteOrder(order: readonly RouteEntry[]): boolean {
  for (let position = 0; position < order.length; position++) {
    if (order[position]!.index !== position) return false;
  }
  return true;
}

/**
 * The signal of an attempt with a timeout (`attemptTimeoutMs`, or a stream's first-token timeout
 * until its headers): it aborts when the time is up, or
 * with the caller's signal. The call keeps the attempt's controller, so that a transport error
 * can tell a timeout (`TimeoutError`) from a network failure.
 */
function attemptSignal(call: CallState, timeoutMs: number): AbortSignal {
  const controller = new AbortController();
  call.attemptTimeout = controller;
  call.timer = setTimeout(() => controller.abort(), timeoutMs);
  const { signal } = call.options;
  return signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
}

/**
 * The position in `order` of the step an answer's headers name: provider and model (which
 * identify it even when the live service leaves `cf-aig-step` stale) win over the index, as in
 * `routes/served-step.ts`; -1 when they name none.
 */
function servedPosition(
  order: readonly RouteEntry[],
  named: Record<string, string | null>,
): number {
  const { provider, model } = named;
  const step = named.step?.trim() ?? "";
  const index = /^\d+$/.test(step) ? Number(step) : -1;
  if (!provider) return index < order.length ? index : -1;
  let first = -1;
  for (const [position, entry] of order.entries()) {
    if (
      entry.provider === provider &&
      (!model || entry.model === model || model.endsWith(`/${entry.model}`))
    ) {
      if (position === index) return position;
      if (first < 0) first = position;
    }
  }
  return first;
}

/** Reads an answer whose headers have arrived: the answer, or the failure. */
async function readAnswer(
  call: CallState,
  response: Response,
  order: readonly RouteEntry[],
  dynamic: boolean,
  url: string,
): Promise<ChatResponse | Failure> {
  const answerHeaders = response.headers;
  const named = {
    step: answerHeaders.get("cf-aig-step"),
    provider: answerHeaders.get("cf-aig-provider"),
    model: answerHeaders.get("cf-aig-model"),
  };
  const cache = answerHeaders.get("cf-aig-cache-status")?.trim().toUpperCase();
  const status = response.status;
  call.status = status;
  call.cacheStatus = cache === "HIT" || cache === "MISS" ? cache : null;
  call.logId = answerHeaders.get("cf-aig-log-id");
  let position = servedPosition(order, named);
  // Without any served-step header a universal answer came from the first step, as Cloudflare's
  // own provider library assumes; an error without one is the last step's (every step failed).
  if (position < 0 && !named.step && !named.provider && !named.model) {
    position = !response.ok ? order.length - 1 : dynamic ? -1 : 0;
  }
  let entry = order[position];
  call.lastEntry = entry ?? call.lastEntry;
  // Its quota headers (and tokens) tell the client's limits, when it has them.
  call.client.limits?.observe(entry, response);
  if (!response.ok) {
    const text = await response.text();
    return { entry, url, status, kind: "status", response, text };
  }
  // The gateway moves on only after a failure: every step before the one that answered failed.
  if (position > 0) passedOver(call, order, position);
  if (entry === undefined && !dynamic) {
    return { entry, url, status, kind: "unknown-step", named, sent: order.length };
  }
  const adapter = call.adapters.get(
    call.state.rest?.adapter ?? (dynamic ? "compat" : entry!.provider),
  )!;
  let answer: StreamAnswer | BrokenStream;
  let responseModel = entry?.model ?? "";
  if (call.streamer !== undefined) {
    answer = await call.streamer.read(response, adapter, entry, url);
    if (call.halted !== undefined) throw call.halted;
  } else {
    const text = await response.text();
    try {
      const parsed = adapter.parseResponse(text, entry?.model);
      answer = { text: parsed.text, usage: parsed.usage, finish: parsed.finishReason };
      responseModel = parsed.model;
    } catch (cause) {
      return { entry, url, status, kind: "unreadable", detail: (cause as Error).message, cause };
    }
    // A dynamic route's answer without served-step headers: the step whose model the body names
    // (`gpt-4o-mini`, `openai/gpt-4o-mini` or a dated snapshot), when exactly one does.
    entry ??= stepNamedBy(order, responseModel);
  }
  const cached = call.cacheStatus === "HIT";
  const { usage } = answer;
  const prices = call.client.prices;
  let cost: number | null = cached ? 0 : null;
  if (!cached && entry && prices) cost = answerCost(prices, entry, responseModel, usage);
  if ("error" in answer) {
    // The usage a broken stream reported was billed; a stream that reported none: unknown.
    if (usage.tokensIn + usage.tokensOut === 0) cost = null;
    return { entry, url, status, kind: "broken", ...answer, cost };
  }
  return {
    id: call.id,
    text: answer.text,
    usage,
    cost,
    finishReason: answer.finish,
    served: {
      index: entry?.index ?? null,
      provider: entry?.provider ?? null,
      model: entry?.model ?? null,
      responseModel,
      cached,
      logId: call.logId,
      attempts: call.attempts,
      latencyMs: Math.max(0, call.now() - call.startedAt),
    },
  };
}
