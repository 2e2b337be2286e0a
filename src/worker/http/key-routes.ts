/**
 * @module
 * The admin API's key routes. Each provider has a pool of keys; the one a route does not name
 * is `default` (the provider's only key until others are added, and the one BYOK secrets follow):
 *
 * | Method and path                               | Does                                          |
 * |-----------------------------------------------|-----------------------------------------------|
 * | `GET /keys`                                   | every provider: pool, history, health, usage  |
 * | `GET /keys/{provider}`                        | one provider                                  |
 * | `PUT /keys/{provider}[/{name}]`               | rotate (a new name adds a key to the pool)    |
 * | `POST /keys/{provider}[/{name}]/rollback`     | `{ version? }`: back to the previous (or named) version |
 * | `DELETE /keys/{provider}[/{name}]/{version}`  | revoke one version (`?force=true` for its last) |
 * | `DELETE /keys/{provider}/{name}`              | take a key out of the pool (every version revoked) |
 *
 * Every change goes to the `KeyLedger`; every answer is the state it committed, with its
 * `revision` and how far it has reached KV and the gateways' BYOK secrets (`propagation`).
 * Responses never contain a key: rotation returns the fingerprint only.
 */
import type { Hono } from "hono";
import { isKnownProvider } from "../../providers/index.ts";
import {
  maxAdminBodyBytes,
  parseBody,
  rollbackBodySchema,
  rotateBodySchema,
} from "../admin-schemas.ts";
import { jsonResponse, WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import { defaultKeyName, keyLayout, keyNamePattern, versionPattern } from "../key-layout.ts";
import {
  describeAllProviders,
  describeProvider,
  viewVersion,
} from "../ledger/key-versions-view.ts";
import { readJsonBody } from "./body.ts";
import type { WorkerHonoEnv } from "./hono-env.ts";
import { committed, propagationView, providerAnswer, viewWithHealth } from "./ledger-answers.ts";
import { methodNotAllowed, notFound } from "./path-errors.ts";

/** Adds the key routes to `app` (behind the admin check). */
export function addKeyRoutes(app: Hono<WorkerHonoEnv>): void {
  app.get("/keys", async (c) => {
    const { context } = c.var;
    const views = describeAllProviders(await context.ledger.providers(), context.reportSettings());
    const withPools = await Promise.all(views.map((view) => viewWithHealth(view, context)));
    return jsonResponse({ providers: withPools });
  });
  app.all("/keys", () => {
    throw methodNotAllowed(["GET"]);
  });

  app.get("/keys/:provider", async (c) => {
    const { context } = c.var;
    const provider = checkProvider(c.req.param("provider"));
    const view = describeProvider(
      await context.ledger.provider(provider),
      context.reportSettings(),
    );
    return jsonResponse(await viewWithHealth(view, context));
  });
  app.put("/keys/:provider", (c) =>
    rotate(c.req.raw, checkProvider(c.req.param("provider")), defaultKeyName, c.var.context),
  );
  app.all("/keys/:provider", () => {
    throw methodNotAllowed(["GET", "PUT"]);
  });

  app.post("/keys/:provider/rollback", (c) =>
    rollback(c.req.raw, checkProvider(c.req.param("provider")), defaultKeyName, c.var.context),
  );
  app.all("/keys/:provider/rollback", () => {
    throw methodNotAllowed(["POST"]);
  });

  // The second segment is a version of the default key, or the name of a key of the pool.
  app.put("/keys/:provider/:name", (c) => {
    const provider = checkProvider(c.req.param("provider"));
    return rotate(c.req.raw, provider, checkName(c.req.param("name")), c.var.context);
  });
  app.delete("/keys/:provider/:second", (c) => {
    const provider = checkProvider(c.req.param("provider"));
    const second = c.req.param("second");
    if (versionPattern.test(second)) {
      return revoke(
        provider,
        defaultKeyName,
        second,
        c.req.query("force") === "true",
        c.var.context,
      );
    }
    return removeKey(provider, checkName(second), c.var.context);
  });
  app.all("/keys/:provider/:second", (c) => {
    checkProvider(c.req.param("provider"));
    const second = c.req.param("second");
    if (versionPattern.test(second)) throw methodNotAllowed(["DELETE"]);
    checkName(second);
    throw methodNotAllowed(["PUT", "DELETE"]);
  });

  app.post("/keys/:provider/:name/rollback", (c) => {
    const provider = checkProvider(c.req.param("provider"));
    return rollback(c.req.raw, provider, checkName(c.req.param("name")), c.var.context);
  });
  app.all("/keys/:provider/:name/rollback", () => {
    throw methodNotAllowed(["POST"]);
  });

  app.delete("/keys/:provider/:name/:version", (c) => {
    const provider = checkProvider(c.req.param("provider"));
    const name = checkName(c.req.param("name"));
    const version = c.req.param("version");
    if (!versionPattern.test(version)) throw notFound();
    return revoke(provider, name, version, c.req.query("force") === "true", c.var.context);
  });
  app.all("/keys/:provider/:name/:version", (c) => {
    checkProvider(c.req.param("provider"));
    const named = keyNamePattern.test(c.req.param("name"));
    if (!named || !versionPattern.test(c.req.param("version"))) throw notFound();
    throw methodNotAllowed(["DELETE"]);
  });
}

async function rotate(
  request: Request,
  provider: string,
  name: string,
  context: HandlerContext,
): Promise<Response> {
  const { providers } = context.settings.config.keys;
  if (!providers.includes(provider)) {
    throw new WorkerError({
      status: 400,
      code: "provider_not_managed",
      message: `${provider} is not in keys.providers of the Stepwise config; add it there and redeploy, or use one of: ${providers.join(", ") || "(none)"}.`,
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
    await context.ledger.rotate(provider, name, {
      key: body.key,
      expiresAt,
      label: body.label ?? "admin-api",
    }),
  );
  context.edge.forget(keyLayout.current(provider));
  const { version, state } = answer.value;
  const pointer = state.keys.find((key) => key.name === name)?.pointer;
  context.logger.info(
    `stepwise worker: rotated ${subject(provider, name)} to ${version.version} (${version.fingerprint}, ${version.label}, revision ${answer.revision})`,
  );
  const isCurrent = pointer?.current === version.version;
  return jsonResponse(
    {
      provider,
      name,
      ...viewVersion(version, isCurrent ? "current" : "history", context.reportSettings()),
      previous: isCurrent ? (pointer?.previous ?? null) : null,
      poolSize: state.keys.filter((key) => key.pointer?.current != null).length,
      revision: answer.revision,
      propagation: propagationView(answer.propagation),
    },
    201,
  );
}

async function rollback(
  request: Request,
  provider: string,
  name: string,
  context: HandlerContext,
): Promise<Response> {
  const body = parseBody(
    rollbackBodySchema,
    (await readJsonBody(request, { maxBytes: maxAdminBodyBytes, allowEmpty: true })).value,
  );
  const answer = committed(await context.ledger.rollback(provider, name, body.version ?? null));
  context.edge.forget(keyLayout.current(provider));
  const current = answer.value.keys.find((key) => key.name === name)?.pointer?.current;
  context.logger.info(
    `stepwise worker: rolled ${subject(provider, name)} back to ${current} (revision ${answer.revision})`,
  );
  return providerAnswer(answer, context);
}

async function revoke(
  provider: string,
  name: string,
  version: string,
  force: boolean,
  context: HandlerContext,
): Promise<Response> {
  const answer = committed(await context.ledger.revoke(provider, name, version, force));
  context.edge.forget(keyLayout.current(provider));
  context.logger.info(
    `stepwise worker: revoked ${subject(provider, name)} version ${version} (revision ${answer.revision})`,
  );
  return providerAnswer(answer, context);
}

async function removeKey(
  provider: string,
  name: string,
  context: HandlerContext,
): Promise<Response> {
  const answer = committed(await context.ledger.removeKey(provider, name));
  context.edge.forget(keyLayout.current(provider));
  context.logger.info(
    `stepwise worker: took ${subject(provider, name)} out of the pool (revision ${answer.revision})`,
  );
  return providerAnswer(answer, context);
}

function subject(provider: string, name: string): string {
  return name === defaultKeyName ? provider : `${provider} key "${name}"`;
}

function checkName(name: string): string {
  if (!keyNamePattern.test(name)) {
    throw new WorkerError({
      status: 400,
      code: "invalid_key_name",
      message:
        "A pool key's name is a lowercase letter, then letters, digits and hyphens (at most 32), e.g. secondary; not rollback.",
    });
  }
  return name;
}

export function checkProvider(provider: string): string {
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
