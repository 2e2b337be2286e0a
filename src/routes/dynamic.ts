/**
 * @module
 * Route → dynamic-routing element graph. A plain route is one fallback chain: start → model →
 * (fallback) → model … → end, every model's success → end. A route with a policy adds the
 * conditional, rate and percentage elements that pick one of its chains (`policy-compile.ts`).
 * Which step settings a model element carries is decided in `dynamic-settings.ts`; the others are
 * reported by `droppedDynamicSettings` (and by the deploy checks), never silently lost.
 *
 * Element ids are derived from positions and names only (`model-0`, `model-1`…), so re-running
 * Pulumi with the same route yields byte-identical elements and never replaces the route.
 */
import type { RouteConfig } from "../config/schema.ts";
import type { RouteElement } from "./elements.ts";
import { compilePolicyRoute } from "./policy-compile.ts";

/** Whether a route is deployed as a dynamic route (`dynamic` is true unless set to false). */
export function isDynamicRoute(route: RouteConfig): boolean {
  return route.dynamic !== false;
}

/**
 * Compiles a route into dynamic-routing elements whose fallback order is the route's order.
 * @example compileDynamicRoute(route).map((element) => element.id) // ["start", "model-0", "model-1", "end"]
 */
export function compileDynamicRoute(route: RouteConfig): RouteElement[] {
  return compilePolicyRoute(route);
}
