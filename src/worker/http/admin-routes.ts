/**
 * @module
 * The admin API (JSON, `Authorization: Bearer <ROTATE_TOKEN>`). Every change goes to the
 * `KeyLedger` Durable Object, the single writer; every answer is the state it committed (with its
 * `revision` and how far the change has reached KV), never a constant and never a read of KV:
 *
 * | Method and path                      | Does                                                  |
 * |--------------------------------------|-------------------------------------------------------|
 * | `GET /keys`                          | metadata and history of every provider                |
 * | `GET /keys/{provider}`               | metadata and history of one provider                  |
 * | `PUT /keys/{provider}`               | rotate: `{ key, expiresAt?, label? }` → new metadata  |
 * | `POST /keys/{provider}/rollback`     | `{ version? }`: back to the previous (or named) one   |
 * | `DELETE /keys/{provider}/{version}`  | revoke one version (`?force=true` for the last key)   |
 * | `POST /app-tokens`                   | `{ name, rateLimit? }` → the app and its token, once  |
 * | `GET /app-tokens`                    | every app, without tokens                             |
 * | `DELETE /app-tokens/{id}`            | revoke an app's token                                 |
 *
 * Responses never contain a key: rotation returns the fingerprint only.
 */
import type { Hono } from "hono";
import { isKnownProvider } from "../../providers/index.ts";
import {
  createAppBodySchema,
  maxAdminBodyBytes,
  parseBody,
  rollbackBodySchema,
  rotateBodySchema,
} from "../admin-schemas.ts";
import { appView, newAppToken } from "../app-tokens.ts";
import { jsonResponse, WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import { keyLayout, versionPattern } from "../key-layout.ts";
import { describeAllProviders, describeProvider, viewVersion } from "../key-report.ts";
import type { LedgerAnswer, Propagation } from "../ledger/ledger-api.ts";
import { methodNotAllowed, notFound } from "../routing.ts";
import { requireAdmin } from "./auth.ts";
import { limitBody, readJsonBody } from "./body.ts";
import type { WorkerHonoEnv } from "./hono-env.ts";

/** Adds the admin routes to `app`. */
export function addAdminRoutes(app: Hono<WorkerHonoEnv>): void {
  for (const path of ["/keys/*", "/app-tokens/*"]) {
    app.use(path, requireAdmin(), limitBody(maxAdminBodyBytes));
  }

  app.get("/keys", async (c) => {
    const context = c.var.context;
    const states = await context.ledger.providers();
    return jsonResponse({ providers: describeAllProviders(states, context.reportSettings()) });
  });
  app.all("/keys", () => {
    throw methodNotAllowed(["GET"]);
  });

  app.get("/keys/:provider", async (c) => {
    const { context } = c.var;
    const provider = checkProvider(c.req.param("provider"));
    return jsonResponse(describeProvider(await context.ledger.provider(provider), report(context)));
  });
  app.put("/keys/:provider", async (c) => {
    const { context } = c.var;
    return rotate(c.req.raw, checkProvider(c.req.param("provider")), context);
  });
  app.all("/keys/:provider", () => {
    throw methodNotAllowed(["GET", "PUT"]);
  });

  app.post("/keys/:provider/rollback", async (c) => {
    const { context } = c.var;
    const provider = checkProvider(c.req.param("provider"));
    const body = parseBody(
      rollbackBodySchema,
      (await readJsonBody(c.req.raw, { maxBytes: maxAdminBodyBytes, allowEmpty: true })).value,
    );
    const answer = committed(await context.ledger.rollback(provider, body.version ?? null));
    context.edge.forget(keyLayout.current(provider));
    context.logger.info(
      `stepwise worker: rolled ${provider} back to ${answer.value.pointer?.current} (revision ${answer.revision})`,
    );
    return providerAnswer(answer, context);
  });
  app.all("/keys/:provider/rollback", () => {
    throw methodNotAllowed(["POST"]);
  });

  app.delete("/keys/:provider/:version", async (c) => {
    const { context } = c.var;
    const provider = checkProvider(c.req.param("provider"));
    const version = c.req.param("version");
    if (!versionPattern.test(version)) throw notFound();
    const force = c.req.query("force") === "true";
    const answer = committed(await context.ledger.revoke(provider, version, force));
    context.edge.forget(keyLayout.current(provider));
    context.logger.info(
      `stepwise worker: revoked ${provider} version ${version} (revision ${answer.revision})`,
    );
    return providerAnswer(answer, context);
  });
  app.all("/keys/:provider/:version", (c) => {
    checkProvider(c.req.param("provider"));
    if (!versionPattern.test(c.req.param("version"))) throw notFound();
    throw methodNotAllowed(["DELETE"]);
  });

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

async function rotate(
  request: Request,
  provider: string,
  context: HandlerContext,
): Promise<Response> {
  if (!context.settings.config.keys.providers.includes(provider)) {
    throw new WorkerError({
      status: 400,
      code: "provider_not_managed",
      message: `${provider} is not in keys.providers of the Stepwise config; add it there and redeploy, or use one of: ${context.settings.config.keys.providers.join(", ") || "(none)"}.`,
    });
  }
  const body = parseBody(
    rotateBodySchema,
    (await readJsonBody(request, { maxBytes: maxAdminBodyBytes })).value,
  );
  // The label is stored, listed and logged in clear: it must not carry the key.
  if (body.label?.includes(body.key)) {
    throw new WorkerError({
      status: 400,
      code: "invalid_body",
      message:
        "Invalid request body: label contains the key; say what rotated it instead (e.g. ci:deploy-42).",
    });
  }
  const expiresAt = body.expiresAt == null ? null : Date.parse(body.expiresAt);
  if (expiresAt !== null && expiresAt <= context.now()) {
    throw new WorkerError({
      status: 400,
      code: "invalid_body",
      message:
        "Invalid request body: expiresAt is in the past; a key must still be valid when it is rotated in.",
    });
  }
  const answer = committed(
    await context.ledger.rotate(provider, {
      key: body.key,
      expiresAt,
      label: body.label ?? "admin-api",
    }),
  );
  context.edge.forget(keyLayout.current(provider));
  const { version, state } = answer.value;
  context.logger.info(
    `stepwise worker: rotated ${provider} to ${version.version} (${version.fingerprint}, ${version.label}, revision ${answer.revision})`,
  );
  const settings = report(context);
  const stateNow = state.pointer?.current === version.version ? "current" : "history";
  return jsonResponse(
    {
      provider,
      ...viewVersion(version, stateNow, settings),
      previous: state.pointer?.current === version.version ? state.pointer.previous : null,
      revision: answer.revision,
      propagation: propagationView(answer.propagation),
    },
    201,
  );
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

/** The value of a committed answer; a refusal becomes its 4xx. */
function committed<Value>(answer: LedgerAnswer<Value>): Extract<LedgerAnswer<Value>, { ok: true }> {
  if (!answer.ok) throw new WorkerError(answer.refusal);
  return answer;
}

function providerAnswer(
  answer: Extract<LedgerAnswer<import("../ledger/ledger-api.ts").ProviderState>, { ok: true }>,
  context: HandlerContext,
): Response {
  return jsonResponse({
    ...describeProvider(answer.value, report(context)),
    propagation: propagationView(answer.propagation),
  });
}

/** How far a change has reached the edge, as the admin API shows it. */
function propagationView(propagation: Propagation) {
  return {
    kv: propagation.written ? "written" : "pending",
    visibleEverywhereBy:
      propagation.visibleEverywhereBy === null
        ? null
        : new Date(propagation.visibleEverywhereBy).toISOString(),
  };
}

function report(context: HandlerContext) {
  return context.reportSettings();
}

function checkProvider(provider: string): string {
  if (!isKnownProvider(provider)) {
    throw new WorkerError({
      status: 400,
      code: "unknown_provider",
      // Only a slug-like name is echoed back, so nothing pasted by mistake is repeated.
      message: `Unknown provider${/^[a-z0-9-]{1,40}$/.test(provider) ? ` "${provider}"` : ""}: use an AI Gateway provider slug such as openai, anthropic, workers-ai, or custom-<slug>.`,
    });
  }
  return provider;
}
