/**
 * @module
 * A call's routing policy (docs/routing-policy.md) and metadata, for a call on a route with a
 * policy or from a client with a scorer (`call.ts` comes here only for those). The decision
 * itself is `routes/policy-call.ts`: the metadata the call sends (its scorer's entries, then the
 * call's own, which win on the same key) and, for a universal call, the chain it takes. The call
 * then works with that chain as its route (a step's index counts within the chain); a dynamic
 * call lets the gateway pick, so every chain's steps are candidates for the step that served.
 * After the answer, a cost budget the call passed within is charged with the answer's cost.
 */

import { BudgetLedger } from "../routes/budget-ledger.ts";
import { type PolicyDecision, routeChains } from "../routes/policy.ts";
import { chargeBudget, planPolicyCall } from "../routes/policy-call.ts";
import type { ClientState, PreparedRoute, RouteEntry } from "./call-state.ts";
import type { ChatOptions } from "./types.ts";

/** The part of a call its policy settles: the metadata it sends, the decision, and its route. */
export interface PolicyCall {
  readonly options: ChatOptions;
  readonly mode: string;
  /** The route the call works with: the chain its policy picked (set here). */
  route: PreparedRoute;
  metadata?: ChatOptions["metadata"];
  decision?: PolicyDecision | undefined;
  now(): number;
}

/** The ledger of the client's policy budgets: the one it was given, or its own. */
function ledgerOf(state: ClientState): BudgetLedger {
  state.budgetLedger ??= state.options.budgetLedger ?? new BudgetLedger();
  return state.budgetLedger;
}

/** Settles one call's metadata, decision and route (the call's as configured, on entry). */
export function planCall(state: ClientState, call: PolicyCall): void {
  const { route, options } = call;
  const universal = call.mode === "universal";
  const planned = planPolicyCall({
    route: route.config,
    request: options,
    metadata: options.metadata,
    scorer: state.options.scorer,
    evaluate: universal,
    ledger: ledgerOf(state),
    random: state.options.random,
    scope: `${state.options.gatewayId}/${route.name}`,
    now: call.now(),
  });
  const { decision } = planned;
  let steps = route.steps;
  if (decision !== undefined) {
    steps = decision.steps.map((step, index) => ({ ...step, index }));
  } else if (!universal && route.config.policy !== undefined) {
    // The gateway picks the chain: any chain's step may have served (each provider/model once).
    const seen = new Set<string>();
    const candidates: RouteEntry[] = [];
    for (const step of routeChains(route.config).flatMap((chain) => chain.steps)) {
      const identity = `${step.provider}/${step.model}`;
      if (!seen.has(identity)) candidates.push({ ...step, index: candidates.length });
      seen.add(identity);
    }
    steps = candidates;
  }
  call.metadata = planned.metadata;
  call.decision = decision;
  if (steps !== route.steps) call.route = { ...route, steps };
}

/** Charges a served call's cost to the cost budget its decision passed within, if any. */
export function chargeCall(
  state: ClientState,
  decision: PolicyDecision,
  cost: number | null,
  now: number,
): void {
  chargeBudget(ledgerOf(state), decision, cost, now);
}
