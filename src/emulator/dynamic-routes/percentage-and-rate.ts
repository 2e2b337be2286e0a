/**
 * @module
 * The non-model elements of a dynamic route: `percentage` picks an output by the injected
 * randomness; `rate` / `rate_limit` count requests (`limitType: count`) or cost (`cost`) per
 * `window` (or `interval`) seconds, per value of `key` (e.g. `metadata.user_id`).
 */
import type { RouteElement } from "../../routes/index.ts";
import { GatewayRequestError } from "../errors.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import { type ConditionContext, resolvePath } from "./conditions.ts";

/** A cost budget a request passed through, charged once its answer's cost is known. */
export interface CostNode {
  readonly key: string;
  readonly spec: { technique: "fixed" | "sliding"; windowMs: number };
}

/** What a condition or rate key can read: metadata, the body and the headers. */
export type RouteContext = ConditionContext;

/** The output port for a draw in [0, 1): `"N%"` ports in order, then `else`. */
export function pickPercentage(element: RouteElement, draw: number): string {
  let cumulative = 0;
  const point = draw * 100;
  for (const port of Object.keys(element.outputs)) {
    const match = /^(\d+(?:\.\d+)?)%$/.exec(port);
    if (!match) continue;
    cumulative += Number(match[1]);
    if (point < cumulative) return port;
  }
  if (element.outputs.else) return "else";
  throw invalidElement(element, "percentages that add up to 100, or an else output");
}

/**
 * Whether a rate element lets the request through; a cost element also returns the budget to
 * charge once the answer's cost is known.
 */
export function passRate(
  call: GatewayCall,
  routeId: string,
  element: RouteElement,
  context: RouteContext,
): { allowed: boolean; costNode?: CostNode } {
  const properties = element.properties ?? {};
  const limit = Number(properties.limit);
  const windowSeconds = Number(properties.window ?? properties.interval);
  if (!(limit >= 0) || !(windowSeconds > 0)) throw invalidElement(element, "limit and window");
  const keyPath = typeof properties.key === "string" ? properties.key : "";
  const keyValue = keyPath === "" ? "" : String(resolvePath(keyPath, context) ?? "");
  const key = `${routeId}:${element.id}:${keyValue}`;
  const spec = {
    technique: properties.technique === "fixed" ? ("fixed" as const) : ("sliding" as const),
    windowMs: windowSeconds * 1000,
  };
  const now = call.services.now();
  const limits = call.gateway.routeLimits;
  if (properties.limitType === "cost") {
    const allowed = limits.total(key, spec, now) < limit;
    return allowed ? { allowed, costNode: { key, spec } } : { allowed };
  }
  return { allowed: limits.tryConsume(key, spec, now, limit) };
}

export function invalidElement(element: RouteElement, needs: string): GatewayRequestError {
  return GatewayRequestError.invalid(
    `Dynamic route element "${element.id}" (${element.type}) is invalid: it needs ${needs}.`,
  );
}
