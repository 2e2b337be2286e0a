/**
 * @module
 * The dynamic-routing element graph in the JSON form Cloudflare's API and the `cloudflare` SDK
 * use (aig-spec §6): `{ id, type, properties?, outputs: { <port>: { elementId } } }`.
 */

export type ElementType = "start" | "conditional" | "percentage" | "rate" | "model" | "end";

export interface ElementOutput {
  elementId: string;
}

/** A model element's properties, in the SDK's spelling. */
export interface ModelElementProperties {
  provider: string;
  model: string;
  /** Time to first byte in ms before the model counts as failed. */
  timeout?: number;
  /** Retries before following the `fallback` output. */
  retries?: number;
}

/** A rate element's properties (a budget), in the SDK's spelling. */
export interface RateElementProperties {
  /** The request field budgets are counted per, e.g. `metadata.user_id`. */
  key: string;
  /** Requests (`count`) or USD (`cost`) per window. */
  limit: number;
  limitType: "count" | "cost";
  /** The window in seconds. */
  window: number;
}

export interface RouteElement {
  id: string;
  type: ElementType;
  properties?: Record<string, unknown>;
  outputs: Record<string, ElementOutput>;
}

export const startElementId = "start";
export const endElementId = "end";

/** The compat-endpoint model name that invokes a dynamic route: `dynamic/<route>`. */
export function dynamicModelName(routeName: string): string {
  return `dynamic/${routeName}`;
}

/** The element id of route step `index` (of the chain named `chain`, when there are several). */
export function modelElementId(index: number, chain?: string): string {
  return chain === undefined ? `model-${index}` : `${chain}-model-${index}`;
}
