/**
 * @module
 * The proxy's routes (see `proxy/proxy.ts`): universal, compat and provider-native, each behind
 * the app-token check and then, for the JSON bodies the Worker reads, the body limit.
 */
import type { Context, Hono } from "hono";
import { maxProxyJsonBytes, proxyCompat, proxyNative, proxyUniversal } from "../proxy/proxy.ts";
import { requireApp } from "./auth.ts";
import { limitBody } from "./body.ts";
import type { WorkerHonoEnv } from "./hono-env.ts";
import { methodNotAllowed, notFound } from "./path-errors.ts";

type ProxyContext = Context<WorkerHonoEnv>;

const gatewayOf = (c: ProxyContext) => ({
  account: c.req.param("account") ?? "",
  gateway: c.req.param("gateway") ?? "",
});

/** Adds the proxy routes to `app`. */
export function addProxyRoutes(app: Hono<WorkerHonoEnv>): void {
  const appToken = requireApp();
  const limit = limitBody(maxProxyJsonBytes);

  app.post("/v1/:account/:gateway", appToken, limit, (c) =>
    proxyUniversal(c.req.raw, gatewayOf(c), c.var.caller, c.var.context),
  );
  app.all("/v1/:account/:gateway", () => {
    throw methodNotAllowed(["POST"]);
  });

  app.post("/v1/:account/:gateway/compat/chat/completions", appToken, limit, (c) =>
    proxyCompat(c.req.raw, gatewayOf(c), c.var.caller, c.var.context),
  );
  app.all("/v1/:account/:gateway/compat/chat/completions", () => {
    throw methodNotAllowed(["POST"]);
  });
  app.all("/v1/:account/:gateway/compat/*", () => {
    throw notFound();
  });

  const native = (c: ProxyContext) =>
    proxyNative(
      c.req.raw,
      { ...gatewayOf(c), provider: c.req.param("provider") ?? "" },
      c.var.caller,
      c.var.context,
    );
  app.all("/v1/:account/:gateway/:provider/*", appToken, native);
  app.all("/v1/:account/:gateway/:provider", appToken, native);
}
