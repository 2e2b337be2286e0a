/**
 * @module
 * What the client does with a route's policy for one call, kept here so the client only plumbs it
 * through: the metadata the call sends (its scorer's entries, then the call's own, which win on the
 * same key) and, for a universal call on a route with a policy, the chain it takes. After the
 * answer, a cost budget the call passed within is charged with the answer's cost.
 */
import type { RouteConfig } from "../config/schema.ts";
import type { ChatRequest } from "../providers/types.ts";
import type { BudgetLedger } from "./budget-ledger.ts";
import { choosePolicyChain, type PolicyDecision } from "./policy.ts";
import type { RequestMetadata } from "./policy-conditions.ts";

/** Computes metadata from a call's request, e.g. a complexity tier. */
export type Scorer = (request: Pick<ChatRequest, "messages">) => RequestMetadata | undefined;

export interface PolicyCallInput {
  readonly route: RouteConfig;
  readonly request: Pick<ChatRequest, "messages">;
  /** The call's own metadata. */
  readonly metadata?: RequestMetadata | undefined;
  readonly scorer?: Scorer | undefined;
  /** Evaluate the policy (a universal call); false when the gateway decides (`dynamic/<route>`). */
  readonly evaluate: boolean;
  readonly ledger?: BudgetLedger | undefined;
  readonly random?: (() => number) | undefined;
  /** Names the route's budgets in the ledger, e.g. `chat-prod/assistant`. */
  readonly scope?: string | undefined;
  readonly now: number;
}

export interface PolicyCall {
  /** The metadata to send; undefined when there is none. */
  readonly metadata: RequestMetadata | undefined;
  /** The policy's decision; undefined without a policy, or when the gateway decides. */
  readonly decision: PolicyDecision | undefined;
}

/**
 * Settles a call's metadata and, for a universal call on a policy route, its chain.
 * @example planPolicyCall({ route, request, metadata: { plan: "pro" }, scorer, evaluate: true, ledger, now })
 */
export function planPolicyCall(input: PolicyCallInput): PolicyCall {
  const scored = input.scorer?.(input.request);
  const metadata = scored === undefined ? input.metadata : { ...scored, ...(input.metadata ?? {}) };
  if (!input.evaluate || input.route.policy === undefined) return { metadata, decision: undefined };
  const decision = choosePolicyChain(input.route, {
    metadata: metadata ?? {},
    ...(input.ledger === undefined ? {} : { ledger: input.ledger }),
    ...(input.random === undefined ? {} : { random: input.random }),
    ...(input.scope === undefined ? {} : { scope: input.scope }),
    now: input.now,
  });
  return { metadata, decision };
}

/** Charges a served call's cost to the cost budget its decision passed within, if any. */
export function chargeBudget(
  ledger: BudgetLedger | undefined,
  decision: PolicyDecision | undefined,
  cost: number | null | undefined,
  now: number,
): void {
  const charge = decision?.costBudget;
  if (ledger === undefined || charge === undefined || !cost) return;
  ledger.add(charge.key, charge.windowMs, now, cost);
}
