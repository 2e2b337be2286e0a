/**
 * @module
 * Route → dynamic-routing element graph, in the JSON form Cloudflare's API and the `cloudflare`
 * SDK use: start → model → (fallback) → model … → end, every model's success → end.
 *
 * Element ids are derived from the step's position only (`model-0`, `model-1`…), so re-running
 * Pulumi with the same route yields byte-identical elements and never replaces the route.
 */
import type { RouteConfig } from "../config/schema.ts";

export type ElementType = "start" | "conditional" | "percentage" | "rate" | "model" | "end";

export interface ElementOutput {
  elementId: string;
}

export interface ModelElementProperties {
  provider: string;
  model: string;
  /** Time to first byte in ms before the model counts as failed. */
  timeout?: number;
  /** Retries before following the `fallback` output. */
  retries?: number;
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

/** The element id of route step `index`. */
export function modelElementId(index: number): string {
  return `model-${index}`;
}

/**
 * Compiles a route into dynamic-routing elements whose fallback order is the route's order.
 * @example compileDynamicRoute(route).map((element) => element.id) // ["start", "model-0", "model-1", "end"]
 */
export function compileDynamicRoute(route: RouteConfig): RouteElement[] {
  const models = route.steps.map((step, index): RouteElement => {
    const properties: ModelElementProperties = { provider: step.provider, model: step.model };
    if (step.timeoutMs !== undefined) properties.timeout = step.timeoutMs;
    if (step.retries !== undefined) properties.retries = step.retries;
    const next = index + 1 < route.steps.length ? modelElementId(index + 1) : endElementId;
    return {
      id: modelElementId(index),
      type: "model",
      properties: { ...properties },
      outputs: { success: { elementId: endElementId }, fallback: { elementId: next } },
    };
  });
  return [
    { id: startElementId, type: "start", outputs: { next: { elementId: modelElementId(0) } } },
    ...models,
    { id: endElementId, type: "end", outputs: {} },
  ];
}
