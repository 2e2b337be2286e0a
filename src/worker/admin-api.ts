/**
 * @module
 * The admin API (JSON, `Authorization: Bearer <ROTATE_TOKEN>`):
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
import { isKnownProvider } from "../providers/index.ts";
import {
  createAppBodySchema,
  maxAdminBodyBytes,
  parseBody,
  rollbackBodySchema,
  rotateBodySchema,
} from "./admin-schemas.ts";
import { secretsEqual } from "./crypto.ts";
import { jsonResponse, unauthorized, WorkerError } from "./errors.ts";
import type { HandlerContext } from "./handler-context.ts";
import { versionPattern } from "./key-layout.ts";
import { describeAllProviders, describeProvider, viewVersion } from "./key-report.ts";
import { readJsonBody } from "./request-body.ts";
import { methodNotAllowed } from "./routing.ts";

/** Reads `Authorization: Bearer <token>`; undefined when absent or malformed. */
export function bearerToken(header: string | null): string | undefined {
  const match = header === null ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

/** Refuses the request unless it carries the admin token. Constant-time comparison. */
export async function requireAdmin(request: Request, context: HandlerContext): Promise<void> {
  const expected = context.settings.rotateToken;
  const given = bearerToken(request.headers.get("authorization"));
  // Compare even when one side is missing, so timing says nothing about which part was wrong.
  const equal = await secretsEqual(given ?? "", expected ?? "\u0000no-token");
  if (expected === undefined || given === undefined || !equal) throw unauthorized();
}

/** Handles `/keys…` and `/app-tokens…`; `segments` is the decoded path. */
export async function handleAdmin(
  request: Request,
  segments: readonly string[],
  context: HandlerContext,
): Promise<Response> {
  await requireAdmin(request, context);
  const [root, provider, third] = segments;
  if (root === "app-tokens") return handleApps(request, segments, context);
  if (provider === undefined) {
    if (request.method !== "GET") throw methodNotAllowed(["GET"]);
    return jsonResponse({
      providers: await describeAllProviders(context.kv, context.reportSettings()),
    });
  }
  checkProvider(provider);
  if (segments.length === 2) {
    if (request.method === "GET") {
      return jsonResponse(await describeProvider(context.kv, provider, context.reportSettings()));
    }
    if (request.method === "PUT") return rotate(request, provider, context);
    throw methodNotAllowed(["GET", "PUT"]);
  }
  if (segments.length === 3 && third === "rollback") {
    if (request.method !== "POST") throw methodNotAllowed(["POST"]);
    const body = parseBody(
      rollbackBodySchema,
      await readJsonBody(request, { maxBytes: maxAdminBodyBytes, allowEmpty: true }),
    );
    const restored = await context.keys.rollback(provider, body.version);
    context.logger.info(`stepwise worker: rolled ${provider} back to ${restored.version}`);
    return jsonResponse(await describeProvider(context.kv, provider, context.reportSettings()));
  }
  if (segments.length === 3 && third !== undefined) {
    if (request.method !== "DELETE") throw methodNotAllowed(["DELETE"]);
    if (!versionPattern.test(third)) throw notFound();
    const force = new URL(request.url).searchParams.get("force") === "true";
    const revoked = await context.keys.revoke(provider, third, { force });
    context.logger.info(`stepwise worker: revoked ${provider} version ${revoked.version}`);
    return jsonResponse(await describeProvider(context.kv, provider, context.reportSettings()));
  }
  throw notFound();
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
    await readJsonBody(request, { maxBytes: maxAdminBodyBytes }),
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
  const metadata = await context.keys.rotate(provider, {
    key: body.key,
    expiresAt,
    label: body.label ?? "admin-api",
  });
  context.logger.info(
    `stepwise worker: rotated ${provider} to ${metadata.version} (${metadata.fingerprint}, ${metadata.label})`,
  );
  // Built from what was written, not re-listed: KV lists may lag behind a write.
  return jsonResponse(
    { provider, ...viewVersion(metadata, "current", context.reportSettings()) },
    201,
  );
}

async function handleApps(
  request: Request,
  segments: readonly string[],
  context: HandlerContext,
): Promise<Response> {
  if (segments.length === 1) {
    if (request.method === "GET") return jsonResponse({ apps: await context.apps.list() });
    if (request.method === "POST") {
      const body = parseBody(
        createAppBodySchema,
        await readJsonBody(request, { maxBytes: maxAdminBodyBytes }),
      );
      const created = await context.apps.create(body);
      context.logger.info(`stepwise worker: created app ${created.id} (${created.name})`);
      return jsonResponse(created, 201);
    }
    throw methodNotAllowed(["GET", "POST"]);
  }
  if (segments.length === 2 && segments[1] !== undefined) {
    if (request.method !== "DELETE") throw methodNotAllowed(["DELETE"]);
    const revoked = await context.apps.revoke(segments[1]);
    context.logger.info(`stepwise worker: revoked app ${revoked.id}`);
    return jsonResponse({ revoked });
  }
  throw notFound();
}

function checkProvider(provider: string): void {
  if (!isKnownProvider(provider)) {
    throw new WorkerError({
      status: 400,
      code: "unknown_provider",
      // Only a slug-like name is echoed back, so nothing pasted by mistake is repeated.
      message: `Unknown provider${/^[a-z0-9-]{1,40}$/.test(provider) ? ` "${provider}"` : ""}: use an AI Gateway provider slug such as openai, anthropic, workers-ai, or custom-<slug>.`,
    });
  }
}

/** 404 for a path the Worker does not serve. */
export function notFound(): WorkerError {
  return new WorkerError({
    status: 404,
    code: "not_found",
    message: "No such endpoint. See the admin API and proxy routes in README.md.",
  });
}
