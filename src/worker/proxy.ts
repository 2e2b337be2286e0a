/**
 * @module
 * The key-injecting proxy. Apps call the Worker exactly as they would call the gateway, with a
 * Stepwise app token instead of provider keys:
 *
 * - universal `POST /v1/{account}/{gateway}`: each step's provider auth headers are filled from KV;
 * - provider-native `/v1/{account}/{gateway}/{provider}/{path}`: that provider's auth header;
 * - compat `POST /v1/{account}/{gateway}/compat/chat/completions`: `Authorization: Bearer <key>`
 *   for the provider named by `model: "{provider}/{model}"`. `dynamic/{route}` models pick their
 *   providers inside the gateway, so their keys must be stored in the gateway (BYOK); the Worker
 *   sends none for them.
 *
 * Providers listed in a gateway's `byok.providers` get no key either. Whatever credentials the
 * app sent are removed; the gateway token is added; the request goes to `GATEWAY_URL` + the same
 * path and query, and the response streams back with its status and `cf-aig-*` headers intact.
 */
import { z } from "zod";
import type { GatewayConfig } from "../config/schema.ts";
import { isKnownProvider } from "../providers/index.ts";
import { notFound } from "./admin-api.ts";
import { parseBody } from "./admin-schemas.ts";
import { unauthorized, WorkerError } from "./errors.ts";
import type { HandlerContext } from "./handler-context.ts";
import type { StoredAppToken } from "./key-layout.ts";
import { forward, modelOf, readStep } from "./proxy-forward.ts";
import { addProviderAuth, appTokenFrom, stepHeaders, upstreamHeaders } from "./proxy-headers.ts";
import { countRequest } from "./rate-limit.ts";
import { readJsonBody } from "./request-body.ts";
import { methodNotAllowed } from "./routing.ts";
import { findGateway } from "./settings.ts";

/** Largest universal or compat body the proxy reads (provider-native bodies stream through). */
export const maxProxyJsonBytes = 10 * 1024 * 1024;

type KeySource = "current" | "previous" | "byok" | "missing";
interface ResolvedKey {
  readonly key: string | undefined;
  readonly source: KeySource;
}

const providerSchema = z.string({ error: "provider must be a string" }).refine(isKnownProvider, {
  error: "unknown provider; use an AI Gateway provider slug such as openai or custom-<slug>",
});
const universalBodySchema = z
  .array(
    z.looseObject({
      provider: providerSchema,
      endpoint: z.string({ error: "endpoint must be a string" }).min(1),
      headers: z.record(z.string(), z.string()).optional(),
    }),
    { error: "the universal body must be a JSON array of steps" },
  )
  .min(1, { error: "the universal body needs at least one step" })
  .max(20, { error: "at most 20 steps per universal request" });
const compatBodySchema = z.looseObject({
  model: z
    .string({ error: 'model is required, as "{provider}/{model}" or "dynamic/{route}"' })
    .regex(/^[a-z0-9-]+\/.+$/, {
      error: 'model must be "{provider}/{model}" or "dynamic/{route}"',
    }),
});

/** Handles `/v1/{account}/{gateway}/…`. `segments` is the decoded path. */
export async function handleProxy(
  request: Request,
  segments: readonly string[],
  context: HandlerContext,
): Promise<Response> {
  const [, accountId, gatewayId, ...rest] = segments;
  if (accountId === undefined || gatewayId === undefined) throw notFound();
  const app = await authenticateApp(request, context);
  const gateway = findGateway(context.settings.config, accountId, gatewayId);
  if (gateway === undefined) {
    throw new WorkerError({
      status: 404,
      code: "unknown_gateway",
      message: `This Worker serves account ${context.settings.config.accountId} and gateways ${context.settings.config.gateways.map((item) => item.id).join(", ")}; check the URL.`,
    });
  }
  await enforceRateLimit(app, context);
  const url = new URL(request.url);
  const target = `${context.settings.gatewayUrl}${url.pathname}${url.search}`;
  const headers = upstreamHeaders(request.headers, context.settings.gatewayToken);
  const base = { gateway: gateway.id, appId: app.id };

  if (rest.length === 0) {
    if (request.method !== "POST") throw methodNotAllowed(["POST"]);
    const steps = parseBody(
      universalBodySchema,
      await readJsonBody(request, { maxBytes: maxProxyJsonBytes }),
    );
    const resolved = await Promise.all(
      steps.map((step) => resolveKey(step.provider, gateway, context)),
    );
    if (resolved.every((item) => item.source === "missing")) throw noUsableKey(steps[0]!.provider);
    const filled = steps.map((step, index) => ({
      ...step,
      headers: stepHeaders(step.headers, step.provider, resolved[index]!.key),
    }));
    headers.set("content-type", "application/json");
    return forward(
      target,
      { method: "POST", headers, body: JSON.stringify(filled) },
      context,
      (response) => {
        const step = readStep(response);
        const served = step === null ? undefined : steps[step];
        return {
          ...base,
          mode: "universal",
          step,
          provider: served?.provider ?? null,
          model: served === undefined ? null : modelOf(served),
          keySource: step === null ? null : (resolved[step]?.source ?? null),
        };
      },
    );
  }

  if (rest[0] === "compat") {
    if (rest.length !== 3 || rest[1] !== "chat" || rest[2] !== "completions") throw notFound();
    if (request.method !== "POST") throw methodNotAllowed(["POST"]);
    const raw = await readJsonBody(request, { maxBytes: maxProxyJsonBytes });
    const { model } = parseBody(compatBodySchema, raw);
    const provider = model.slice(0, model.indexOf("/"));
    let keySource: KeySource = "byok";
    if (provider !== "dynamic") {
      if (!isKnownProvider(provider)) throw unknownProvider();
      const resolved = await resolveKey(provider, gateway, context);
      if (resolved.source === "missing") throw noUsableKey(provider);
      if (resolved.key !== undefined) headers.set("authorization", `Bearer ${resolved.key}`);
      keySource = resolved.source;
    }
    headers.set("content-type", "application/json");
    return forward(
      target,
      { method: "POST", headers, body: JSON.stringify(raw) },
      context,
      (response) => ({
        ...base,
        mode: "compat",
        step: readStep(response),
        provider:
          response?.headers.get("cf-aig-provider") ?? (provider === "dynamic" ? null : provider),
        model: response?.headers.get("cf-aig-model") ?? model.slice(model.indexOf("/") + 1),
        keySource,
      }),
    );
  }

  const provider = rest[0]!;
  if (!isKnownProvider(provider)) throw unknownProvider();
  const resolved = await resolveKey(provider, gateway, context);
  if (resolved.source === "missing") throw noUsableKey(provider);
  addProviderAuth(headers, provider, resolved.key);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return forward(
    target,
    { method: request.method, headers, body: hasBody ? request.body : null },
    context,
    (response) => ({
      ...base,
      mode: "provider",
      step: readStep(response),
      provider,
      model: response?.headers.get("cf-aig-model") ?? null,
      keySource: resolved.source,
    }),
  );
}

/** The app a request's token belongs to. @throws {WorkerError} 401 otherwise. */
export async function authenticateApp(
  request: Request,
  context: HandlerContext,
): Promise<StoredAppToken> {
  const token = appTokenFrom(request.headers);
  const app = token === undefined ? undefined : await context.apps.verify(token);
  if (app === undefined) throw unauthorized();
  return app;
}

async function enforceRateLimit(app: StoredAppToken, context: HandlerContext): Promise<void> {
  const limit = app.rateLimit ?? context.settings.config.worker.appRateLimit;
  const decision = await countRequest(context.kv, app.id, limit, context.now());
  context.execution.waitUntil(decision.commit);
  if (!decision.allowed) {
    throw new WorkerError({
      status: 429,
      code: "rate_limited",
      message: `App ${app.name} is over its limit of ${limit.limit} requests per ${limit.windowSeconds} s; retry after ${decision.retryAfterSeconds} s.`,
      headers: { "retry-after": String(decision.retryAfterSeconds) },
    });
  }
}

async function resolveKey(
  provider: string,
  gateway: GatewayConfig,
  context: HandlerContext,
): Promise<ResolvedKey> {
  if (gateway.byok?.providers.includes(provider)) return { key: undefined, source: "byok" };
  const usable = await context.keys.usableKey(provider);
  return usable === undefined
    ? { key: undefined, source: "missing" }
    : { key: usable.key, source: usable.source };
}

function unknownProvider(): WorkerError {
  return new WorkerError({
    status: 400,
    code: "unknown_provider",
    message:
      "Unknown provider in the request: use an AI Gateway provider slug such as openai, anthropic, workers-ai, or custom-<slug>.",
  });
}

function noUsableKey(provider: string): WorkerError {
  return new WorkerError({
    status: 503,
    code: "no_usable_key",
    message: `The Worker holds no usable key for ${provider}: rotate one in with \`stepwise rotate ${provider} --key-file <file>\`, or store it in the gateway (byok.providers).`,
  });
}
