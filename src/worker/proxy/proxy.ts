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
 * app sent are removed; the gateway token is added. Per call the Worker reads the app's record
 * and one record per provider from KV (in parallel with the app's limiter), writes nothing to KV,
 * and forwards the body untouched where it can (compat, provider-native) or with only the step
 * headers replaced (universal).
 */
import type { GatewayConfig } from "../../config/schema.ts";
import { isKnownProvider } from "../../providers/index.ts";
import { parseBody } from "../admin-schemas.ts";
import { WorkerError } from "../errors.ts";
import type { HandlerContext } from "../handler-context.ts";
import { readJsonBody } from "../http/body.ts";
import type { StoredAppToken } from "../key-layout.ts";
import type { RateLimitDecision } from "../limits/app-limiter.ts";
import { findGateway } from "../settings.ts";
import { type AskedStep, type CallFacts, requestMetadata } from "./call-point.ts";
import { forward } from "./forward.ts";
import { addProviderAuth, stepHeaders, upstreamHeaders } from "./headers.ts";
import {
  compatBodySchema,
  modelOf,
  noUsableKey,
  type ResolvedKey,
  resolveKeys,
  universalBodySchema,
  unknownProvider,
} from "./request-keys.ts";
import { replaceStepHeaders } from "./universal-body.ts";

/** Largest universal or compat body the proxy reads (provider-native bodies stream through). */
export const maxProxyJsonBytes = 10 * 1024 * 1024;

/** The authenticated caller of a proxied request. */
export interface ProxyCaller {
  readonly app: StoredAppToken;
  /** The token it sent (scrubbed from the answer). */
  readonly token: string;
}

/** Where a proxied request goes and what is known before its body is read. */
interface ProxyTarget {
  readonly gateway: GatewayConfig;
  readonly url: string;
  readonly headers: Headers;
  readonly admitted: Promise<RateLimitDecision>;
  /** What a 429 says: the app and its limit. */
  readonly limitText: string;
  readonly facts: Pick<CallFacts, "gateway" | "app" | "metadata" | "eventId"> & {
    readonly route: string | null;
  };
}

/** Checks the gateway, starts counting the call against the app's limit, prepares headers. */
function prepare(
  request: Request,
  accountId: string,
  gatewayId: string,
  caller: ProxyCaller,
  context: HandlerContext,
): ProxyTarget {
  const gateway = findGateway(context.settings.config, accountId, gatewayId);
  if (gateway === undefined) {
    throw new WorkerError({
      status: 404,
      code: "unknown_gateway",
      message: `This Worker serves account ${context.settings.config.accountId} and gateways ${context.settings.config.gateways.map((item) => item.id).join(", ")}; check the URL.`,
    });
  }
  const limit = caller.app.rateLimit ?? context.settings.config.worker.appRateLimit;
  const admitted = context.limiter(caller.app.id).admit(limit);
  // A refusal is reported by `enforceLimit`; never leave it unhandled meanwhile.
  admitted.catch(() => undefined);
  const url = new URL(request.url);
  const { route, metadata } = requestMetadata(request.headers);
  return {
    gateway,
    url: `${context.settings.gatewayUrl}${url.pathname}${url.search}`,
    headers: upstreamHeaders(request.headers, context.settings.gatewayToken),
    admitted,
    limitText: `App ${caller.app.name} is over its limit of ${limit.limit} requests per ${limit.windowSeconds} s`,
    facts: {
      gateway: gateway.id,
      app: caller.app.id,
      metadata,
      eventId: request.headers.get("cf-aig-event-id"),
      route,
    },
  };
}

/** `POST /v1/{account}/{gateway}`. */
export async function proxyUniversal(
  request: Request,
  params: { account: string; gateway: string },
  caller: ProxyCaller,
  context: HandlerContext,
): Promise<Response> {
  const target = prepare(request, params.account, params.gateway, caller, context);
  const body = await afterLimit(target, readJsonBody(request, { maxBytes: maxProxyJsonBytes }));
  const steps = parseBody(universalBodySchema, body.value);
  const resolved = await resolveKeys(
    steps.map((step) => step.provider),
    target.gateway,
    context,
  );
  if (resolved.every((item) => item.source === "missing")) throw noUsableKey(steps[0]!.provider);
  const filled = steps.map((step, index) =>
    stepHeaders(step.headers, step.provider, resolved[index]!.key),
  );
  target.headers.set("content-type", "application/json");
  return forward(
    {
      target: target.url,
      init: {
        method: "POST",
        headers: target.headers,
        body: replaceStepHeaders(body.text, filled),
      },
      facts: {
        ...target.facts,
        mode: "universal",
        route: target.facts.route ?? "",
        steps: steps.map((step, index) => ({
          provider: step.provider,
          model: modelOf(step),
          keySource: resolved[index]!.source,
        })),
      },
      secrets: secretsOf(resolved, caller, context),
    },
    context,
  );
}

/** `POST /v1/{account}/{gateway}/compat/chat/completions`. */
export async function proxyCompat(
  request: Request,
  params: { account: string; gateway: string },
  caller: ProxyCaller,
  context: HandlerContext,
): Promise<Response> {
  const target = prepare(request, params.account, params.gateway, caller, context);
  const body = await afterLimit(target, readJsonBody(request, { maxBytes: maxProxyJsonBytes }));
  const { model } = parseBody(compatBodySchema, body.value);
  const provider = model.slice(0, model.indexOf("/"));
  const modelName = model.slice(model.indexOf("/") + 1);
  const dynamic = provider === "dynamic";
  let resolved: ResolvedKey = { key: undefined, source: "byok" };
  if (!dynamic) {
    if (!isKnownProvider(provider)) throw unknownProvider();
    [resolved] = (await resolveKeys([provider], target.gateway, context)) as [ResolvedKey];
    if (resolved.source === "missing") throw noUsableKey(provider);
    if (resolved.key !== undefined) target.headers.set("authorization", `Bearer ${resolved.key}`);
  }
  target.headers.set("content-type", "application/json");
  const step: AskedStep = dynamic
    ? { provider: "", model: null, keySource: "byok" }
    : { provider, model: modelName, keySource: resolved.source };
  return forward(
    {
      target: target.url,
      // The app's own bytes: nothing in a compat body changes.
      init: { method: "POST", headers: target.headers, body: body.text },
      facts: {
        ...target.facts,
        mode: dynamic ? "dynamic" : "compat",
        route: target.facts.route ?? (dynamic ? model : ""),
        steps: dynamic ? [] : [step],
      },
      secrets: secretsOf([resolved], caller, context),
    },
    context,
  );
}

/** `/v1/{account}/{gateway}/{provider}/{path}`: any method, the body streams through. */
export async function proxyNative(
  request: Request,
  params: { account: string; gateway: string; provider: string },
  caller: ProxyCaller,
  context: HandlerContext,
): Promise<Response> {
  const target = prepare(request, params.account, params.gateway, caller, context);
  const { provider } = params;
  const known = isKnownProvider(provider);
  const keys = known ? resolveKeys([provider], target.gateway, context) : undefined;
  keys?.catch(() => undefined);
  await afterLimit(target, Promise.resolve());
  if (!known || keys === undefined) throw unknownProvider();
  const [resolved] = (await keys) as [ResolvedKey];
  if (resolved.source === "missing") throw noUsableKey(provider);
  addProviderAuth(target.headers, provider, resolved.key);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return forward(
    {
      target: target.url,
      // The app's body streams through untouched (its length kept).
      init: {
        method: request.method,
        headers: target.headers,
        body: hasBody ? request.body : null,
      },
      facts: {
        ...target.facts,
        mode: "provider",
        route: target.facts.route ?? "",
        steps: [{ provider, model: null, keySource: resolved.source }],
      },
      secrets: secretsOf([resolved], caller, context),
    },
    context,
  );
}

/** Waits for the limiter's answer first, so an app over its limit always gets the 429. */
async function afterLimit<Value>(target: ProxyTarget, work: Promise<Value>): Promise<Value> {
  work.catch(() => undefined);
  const decision = await target.admitted;
  if (!decision.allowed) {
    throw new WorkerError({
      status: 429,
      code: "rate_limited",
      message: `${target.limitText}; retry after ${decision.retryAfterSeconds} s.`,
      headers: { "retry-after": String(decision.retryAfterSeconds) },
    });
  }
  return work;
}

function secretsOf(
  resolved: readonly ResolvedKey[],
  caller: ProxyCaller,
  context: HandlerContext,
): (string | undefined)[] {
  return [...resolved.map((item) => item.key), caller.token, context.settings.gatewayToken];
}
