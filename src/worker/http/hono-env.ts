/**
 * @module
 * The hono environment of the Worker's routes: the bindings as `c.env`, the per-request
 * {@link HandlerContext} as `c.var.context` (set by the first middleware) and, on proxied routes,
 * the authenticated app as `c.var.caller`.
 */
import type { WorkerEnv } from "../bindings.ts";
import type { HandlerContext } from "../handler-context.ts";
import type { ProxyCaller } from "../proxy/call-setup.ts";

export interface WorkerHonoEnv {
  Bindings: WorkerEnv;
  Variables: { context: HandlerContext; caller: ProxyCaller };
}
