/**
 * @module
 * The admin API (JSON, `Authorization: Bearer <ROTATE_TOKEN>`). Every change goes to the
 * `KeyLedger` Durable Object, the single writer; every answer is the state it committed (with its
 * `revision` and how far the change has reached KV), never a constant and never a read of KV.
 * The key routes (pools, rotation, rollback, revocation) are in `key-routes.ts`; here:
 *
 * | Method and path                      | Does                                                  |
 * |--------------------------------------|-------------------------------------------------------|
 * | `POST /app-tokens`                   | `{ name, rateLimit?, allow? }` → the app and its token, once |
 * | `GET /app-tokens`                    | every app, without tokens                             |
 * | `DELETE /app-tokens/{id}`            | revoke an app's token                                 |
 */
import type { Hono } from "hono";
import { createAppBodySchema, maxAdminBodyBytes, parseBody } from "../admin-schemas.ts";
import { appView, newAppToken } from "../app-tokens.ts";
import { jsonResponse } from "../errors.ts";
import { keyLayout } from "../key-layout.ts";
import type { LedgerAnswer } from "../ledger/ledger-api.ts";
import { requireAdmin } from "./auth.ts";
import { limitBody, readJsonBody } from "./body.ts";
import type { WorkerHonoEnv } from "./hono-env.ts";
import { addKeyRoutes } from "./key-routes.ts";
import { committed, propagationView } from "./ledger-answers.ts";
import { methodNotAllowed } from "./path-errors.ts";

/** Adds the admin routes to `app`. */
export function addAdminRoutes(app: Hono<WorkerHonoEnv>): void {
  for (const path of ["/keys/*", "/app-tokens/*"]) {
    app.use(path, requireAdmin(), limitBody(maxAdminBodyBytes));
  }

  addKeyRoutes(app);

  app.get("/app-tokens", async (c) => {
    const apps = await c.var.context.ledger.apps();
    return jsonResponse({ apps: apps.map(appView) });
  });
  app.post("/app-tokens", async (c) => {
    const { context } = c.var;
    const body = parseBody(
      createAppBodySchema,
      (await readJsonBody(c.req.raw, { maxBytes: maxAdminBodyBytes })).value,
    );
    const { token, app: newApp } = await newAppToken(body);
    const answer = committed(await context.ledger.createApp(newApp));
    context.edge.forget(keyLayout.app(newApp.id));
    context.logger.info(`stepwise worker: created app ${newApp.id} (${newApp.name})`);
    return jsonResponse(
      { ...appView(answer.value), token, propagation: propagationView(answer.propagation) },
      201,
    );
  });
  app.all("/app-tokens", () => {
    throw methodNotAllowed(["GET", "POST"]);
  });

  app.delete("/app-tokens/:id", async (c) => {
    const { context } = c.var;
    const id = c.req.param("id");
    // Only an id of the form the Worker makes reaches the ledger.
    const answer = committed(
      appIdPattern.test(id) ? await context.ledger.revokeApp(id) : unknownApp(id),
    );
    context.edge.forget(keyLayout.app(answer.value.id));
    context.logger.info(`stepwise worker: revoked app ${answer.value.id}`);
    return jsonResponse({
      revoked: appView(answer.value),
      propagation: propagationView(answer.propagation),
    });
  });
  app.all("/app-tokens/:id", () => {
    throw methodNotAllowed(["DELETE"]);
  });
}

const appIdPattern = /^[0-9a-f]{12}$/;

function unknownApp(id: string): LedgerAnswer<never> {
  return {
    ok: false,
    refusal: {
      status: 404,
      code: "unknown_app",
      message: `No app with id ${JSON.stringify(id.slice(0, 40))}; list apps with GET /app-tokens.`,
    },
  };
}
