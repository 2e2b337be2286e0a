/**
 * @module
 * The Worker's HTTP layer on hono: a per-request {@link HandlerContext}, the path check, the
 * admin, proxy and health routes, and one place where every error becomes its
 * `{ error: { code, message } }` answer (a `WorkerError` keeps its status; anything unexpected is
 * a 500 that says nothing about the cause).
 */
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { errorResponse, jsonResponse, unauthorized, WorkerError } from "../errors.ts";
import type { HandlerContext, WorkerLogger } from "../handler-context.ts";
import { healthResponse } from "../health/health-document.ts";
import { addAdminRoutes } from "./admin-routes.ts";
import { authenticateApp, isAdminToken } from "./auth.ts";
import type { WorkerHonoEnv } from "./hono-env.ts";
import { checkPath, methodNotAllowed, notFound } from "./path-errors.ts";
import { addProxyRoutes } from "./proxy-routes.ts";

/** Builds the routes; `contextFor` makes each request's context from its bindings. */
export function buildApp(
  contextFor: (env: WorkerHonoEnv["Bindings"], execution: ExecutionContextOf) => HandlerContext,
  logger: () => WorkerLogger,
): Hono<WorkerHonoEnv> {
  // Not strict: `/keys/` is `/keys`.
  const app = new Hono<WorkerHonoEnv>({ strict: false });

  app.use("*", async (c, next) => {
    c.set("context", contextFor(c.env, c.executionCtx));
    checkPath(new URL(c.req.url).pathname);
    await next();
  });

  app.get("/", () =>
    jsonResponse({ name: "stepwise-keys", docs: "See the companion Worker section of README.md." }),
  );
  app.get("/health", async (c) => {
    await requireAppOrAdmin(c.req.raw, c.var.context);
    return healthResponse(c.req.raw, c.var.context);
  });
  app.all("/health", () => {
    throw methodNotAllowed(["GET"]);
  });
  addAdminRoutes(app);
  addProxyRoutes(app);

  app.notFound(() => errorResponse(notFound()));
  app.onError((error) => {
    if (error instanceof HTTPException) return error.getResponse();
    return errorResponse(error, logger());
  });
  return app;
}

/** What hono passes as the execution context. */
type ExecutionContextOf = { waitUntil(promise: Promise<unknown>): void };

/** `GET /health` accepts an app token or the admin token. */
async function requireAppOrAdmin(request: Request, context: HandlerContext): Promise<void> {
  try {
    await authenticateApp(request, context);
    return;
  } catch (error) {
    if (!WorkerError.isInstance(error)) throw error;
  }
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.get("authorization") ?? "");
  if (match?.[1] === undefined || !(await isAdminToken(match[1], context))) throw unauthorized();
}
