/**
 * @module
 * Who may call what. The admin API takes `Authorization: Bearer <ROTATE_TOKEN>` through hono's
 * `bearerAuth`, compared in constant time; a missing, malformed or wrong token all get the same
 * 401, which never says which it was. Proxied calls and `GET /health` take an app token (see
 * `appTokenFrom`), checked against its digest in KV.
 */
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { verifyAppToken } from "../app-tokens.ts";
import { secretsEqual } from "../crypto.ts";
import { errorResponse, unauthorized } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import type { ProxyCaller } from "../proxy/call-setup.ts";
import { appTokenFrom } from "../proxy/headers.ts";
import type { WorkerHonoEnv } from "./hono-env.ts";

/** The one 401 every failed check answers with. */
const refuse = () => errorResponse(unauthorized());

/** Middleware: the admin token, or the uniform 401. */
export function requireAdmin(): MiddlewareHandler<WorkerHonoEnv> {
  return bearerAuth<WorkerHonoEnv>({
    verifyToken: (token, c) => isAdminToken(token, c.var.context),
    noAuthenticationHeader: { message: refuse },
    invalidAuthenticationHeader: { message: refuse },
    invalidToken: { message: refuse },
  });
}

/** Whether `token` is the admin token; false for everything when none is set. */
export async function isAdminToken(token: string, context: HandlerContext): Promise<boolean> {
  const expected = context.settings.rotateToken;
  // Compare even when no token is set, so timing says nothing about the configuration.
  const equal = await secretsEqual(token, expected ?? "\u0000no-token");
  return expected !== undefined && equal;
}

/** Middleware: an app token, or the uniform 401; the app is then `c.var.caller`. */
export function requireApp(): MiddlewareHandler<WorkerHonoEnv> {
  return async (c, next) => {
    c.set("caller", await authenticateApp(c.req.raw, c.var.context));
    await next();
  };
}

/** The app a request's token belongs to. @throws {WorkerError} 401 otherwise. */
export async function authenticateApp(
  request: Request,
  context: HandlerContext,
): Promise<ProxyCaller> {
  const token = appTokenFrom(request.headers);
  const app = token === undefined ? undefined : await verifyAppToken(context.edge, token);
  if (app === undefined || token === undefined) throw unauthorized();
  return { app, token };
}
