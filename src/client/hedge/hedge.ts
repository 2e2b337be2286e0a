/**
 * @module
 * Hedged requests, for routes with `hedge: { afterMs, maxExtraCostPerHour }`. A universal attempt sends its steps; when no answer has
 * started `afterMs` later (no 2xx headers), the same request goes to the steps after the first
 * (the hedge). The first 2xx answer is kept and the other request is aborted. An error answer
 * does not win: the other request is awaited, and when both fail the first request's answer is
 * read as the attempt's failure. Each hedge is one more attempt of the call, and the call's event
 * lists it in `hedges`.
 *
 * The extra cost of a hedge is the estimated cost of the answer dropped (or of the hedge, when
 * both failed): its prompt's tokens (about 4 characters each) at its first step's input price,
 * since an aborted request is billed at least its input. A hedge is sent only when the route's
 * ledger of the last hour plus that estimate stays within `maxExtraCostPerHour`; a hedge whose
 * step has no price in the client's `prices` is never sent.
 */

import type { HedgeConfig } from "../../config/schema.ts";
import { computeCost } from "../../providers/cost.ts";
import { attemptHeaders } from "../attempt-headers.ts";
import { throwProblems } from "../call-errors.ts";
import type { CallState, RouteEntry } from "../call-state.ts";
import type { HedgeRecord } from "../event.ts";
import { ledgerOf } from "./cost-ledger.ts";

type Init = RequestInit & { readonly body: string };

/** Estimated USD of starting a request on `entry`: its prompt's tokens at the input price. */
function startCost(call: CallState, entry: RouteEntry): number | undefined {
  const prices = call.client.prices;
  if (!prices) return undefined;
  let characters = 0;
  for (const message of call.options.messages) characters += message.content.length;
  const usage = { tokensIn: Math.ceil(characters / 4), tokensOut: 0 };
  return computeCost(prices, entry.provider, entry.model, usage);
}

/** One request of the race: its controller and how it ended. */
interface Leg {
  readonly controller: AbortController;
  readonly sent: Promise<Response>;
  outcome?: { readonly response: Response } | { readonly error: unknown };
}

/** The route's hedge settings, checked (a route from the config was checked by its schema). */
function checked(route: CallState["route"]): HedgeConfig {
  const { afterMs, maxExtraCostPerHour } = route.config.hedge!;
  const problems: string[] = [];
  if (!(Number.isInteger(afterMs) && afterMs >= 1)) {
    problems.push(`hedge.afterMs must be a whole number of ms of at least 1, got ${afterMs}`);
  }
  if (!(typeof maxExtraCostPerHour === "number" && maxExtraCostPerHour >= 0)) {
    problems.push(
      `hedge.maxExtraCostPerHour must be USD per hour (0 or more), got ${maxExtraCostPerHour}`,
    );
  }
  throwProblems(`route "${route.name}"`, problems);
  return route.config.hedge!;
}

/**
 * The hedge's answer as read against the attempt's whole order: its `cf-aig-step` counts from
 * the second step, and an answer naming no step came from the hedge's first (order position 1).
 */
function shifted(response: Response): Response {
  const headers = new Headers(response.headers);
  const step = headers.get("cf-aig-step")?.trim();
  if (step && /^\d+$/.test(step)) headers.set("cf-aig-step", String(Number(step) + 1));
  else if (!step && !headers.has("cf-aig-provider") && !headers.has("cf-aig-model")) {
    headers.set("cf-aig-step", "1");
  }
  const { status, statusText } = response;
  return new Response(response.body, { status, statusText, headers });
}

/**
 * Sends the attempt's request (`init.body`, the universal steps of `order`), and its hedge when due
 * and affordable; resolves with the answer to read, as if the attempt's one request had given it.
 */
export function sendHedged(
  call: CallState,
  url: string,
  init: Init,
  order: readonly RouteEntry[],
): Promise<Response> {
  const hedge = checked(call.route);
  const doFetch = call.client.fetch ?? fetch;
  // A dynamic call (to the compat endpoint) leaves the chain to the gateway, and one step has
  // nothing after it: no hedge.
  if (url.endsWith("/compat/chat/completions") || order.length < 2) return doFetch(url, init);
  const steps = JSON.parse(init.body) as unknown[];
  const startLeg = (body: string, headers = init.headers): Leg => {
    const controller = new AbortController();
    const signal = init.signal
      ? AbortSignal.any([init.signal, controller.signal])
      : controller.signal;
    return { controller, sent: doFetch(url, { ...init, headers, body, signal }) };
  };
  const first = order[1]!;
  const estimate = startCost(call, first);
  const ledger = ledgerOf(call.client, call.route.name, hedge.maxExtraCostPerHour);
  const primary = startLeg(init.body);
  let second: Leg | undefined;
  let record: { -readonly [Field in keyof HedgeRecord]: HedgeRecord[Field] } | undefined;

  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const finish = (winner: Leg | undefined) => {
      settled = true;
      clearTimeout(timer);
      const kept = winner ?? primary;
      for (const leg of [primary, second]) {
        if (leg === undefined || leg === kept) continue;
        leg.controller.abort();
        leg.sent.then(
          (late) => late.body?.cancel().catch(() => undefined),
          () => undefined,
        );
      }
      if (record?.sent) {
        record.kept = winner === undefined ? "none" : winner === primary ? "primary" : "hedge";
        const dropped = winner === second ? startCost(call, order[0]!) : undefined;
        record.extraCost = dropped ?? estimate ?? 0;
        ledger.add(record.extraCost, call.now());
      }
      const outcome = kept.outcome!;
      if ("response" in outcome)
        resolve(kept === second ? shifted(outcome.response) : outcome.response);
      else reject(outcome.error);
    };
    const settle = (leg: Leg) => {
      if (settled) return;
      if ("response" in leg.outcome! && leg.outcome.response.ok) return finish(leg);
      const other = leg === primary ? second : primary;
      // Before the hedge is due, the first request's failure ends the race (no hedge is sent).
      if (other === undefined) return finish(undefined);
      if (other.outcome !== undefined) finish(undefined);
    };
    const watch = (leg: Leg) =>
      leg.sent.then(
        (response) => {
          leg.outcome = { response };
          settle(leg);
        },
        (error: unknown) => {
          leg.outcome = { error };
          settle(leg);
        },
      );
    watch(primary);
    const timer = setTimeout(() => {
      if (settled) return;
      if (call.halted !== undefined) {
        primary.controller.abort();
        return;
      }
      const now = call.now();
      const { index: step, provider, model } = first;
      record = {
        step,
        provider,
        model,
        afterMs: hedge.afterMs,
        sent: false,
        kept: "primary",
        extraCost: 0,
      };
      call.hedges ??= [];
      call.hedges.push(record);
      if (estimate === undefined) record.reason = "unpriced";
      else if (!ledger.allows(estimate, now)) record.reason = "cost_cap";
      else {
        record.sent = true;
        call.attempts++;
        // The hedge holds the steps after the first: its place says which route steps they are.
        // It races the first request of the same attempt, so it names that attempt: the sources
        // keep whichever of the two answered.
        const headers = attemptHeaders(call, order.slice(1), call.attempts - 1);
        second = startLeg(JSON.stringify(steps.slice(1)), headers);
        watch(second);
      }
    }, hedge.afterMs);
  });
}
