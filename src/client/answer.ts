/**
 * @module
 * Reading an answer whose headers have arrived, for its call: which step served (from
 * `cf-aig-step`, `cf-aig-provider` and `cf-aig-model`), the gateway's cache status and log id,
 * then the body: an error answer as a {@link Failure} for `failover.ts`, a 2xx answer read whole
 * (or as a stream, by the call's `Streamer`) into the normalised {@link ChatResponse}, with
 * its cost when the client has prices.
 */

import type { GatewayCall } from "./call.ts";
import type { Failure, StreamAnswer } from "./call-context.ts";
import type { RouteEntry } from "./client.ts";
import { costModule } from "./lazy-modules.ts";
import type { ChatResponse } from "./types.ts";

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
export async function readAnswer(
  call: GatewayCall,
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
  call.passedOver(order, position);
  if (entry === undefined && !dynamic) {
    return { entry, url, status, kind: "unknown-step", named, sent: order.length };
  }
  const adapter = call.adapters.get(dynamic ? "compat" : entry!.provider)!;
  let answer: StreamAnswer;
  let responseModel = entry?.model ?? "";
  if (call.streamer !== undefined) {
    const reading = await call.streamer.read(response, adapter, entry, url);
    call.check();
    if ("error" in reading) return { entry, url, status, kind: "broken", ...reading };
    answer = reading;
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
    if (entry === undefined) {
      entry = (costModule.loaded ?? (await costModule.load())).stepNamedBy(order, responseModel);
    }
  }
  const cached = call.cacheStatus === "HIT";
  const { usage } = answer;

  const prices = call.client.prices;
  let cost: number | null = cached ? 0 : null;
  if (!cached && entry && prices) {
    const { answerCost } = costModule.loaded ?? (await costModule.load());
    cost = answerCost(prices, entry, responseModel, usage);
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
