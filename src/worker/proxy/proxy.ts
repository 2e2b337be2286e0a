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
 * A provider a gateway keeps in `byok.providers` gets no key from the Worker unless the Worker
 * holds keys for it (then the Worker's, which the ledger also writes to the gateway's stored key).
 * Whatever credentials the app sent are removed; the gateway token is added. Per call the Worker
 * reads the app's record and, once the app's limiter let the call through, one record per provider
 * (its pool of keys) from KV; it writes nothing to KV, and forwards the body untouched where it
 * can (compat, provider-native) or with only the step headers replaced (universal).
 *
 * Pools: a universal step is sent once per usable key of its provider (at most
 * `maxKeysPerStep`, `sent-steps.ts`), so a 429 or 401/403 for one key moves the gateway to the next key
 * before the next provider; `cf-aig-step` is mapped back to the app's step. A compat or
 * provider-native call is re-sent with the next key by the Worker itself, all its attempts within
 * the app's `cf-aig-request-timeout` (`call-deadline.ts`). Keys at a cap are not sent at all;
 * when every key of every step is, the answer is a 429 `provider_at_cap`.
 */
import { isKnownProvider } from "../../providers/index.ts";
import { parseBody } from "../admin-schemas.ts";
import type { UsableKey } from "../edge-reader.ts";
import type { HandlerContext } from "../handler-context.ts";
import { readJsonBody } from "../http/body.ts";
import type { AskedStep } from "./analytics-point.ts";
import { checkProviders, checkRoute } from "./app-allow.ts";
import { cachePlan, uncachedStepHeaders } from "./app-cache.ts";
import { scopeStepHeaders } from "./app-scope.ts";
import { afterLimit, type ProxyCaller, prepare, scopeCache, secretsOf } from "./call-setup.ts";
import { forward } from "./forward.ts";
import { addProviderAuth, stepHeaders } from "./headers.ts";
import { keyObserver, universalObserver } from "./pool-observer.ts";
import {
  compatBodySchema,
  modelOf,
  noUsableKey,
  providerAtCap,
  type ResolvedPool,
  resolvePools,
  universalBodySchema,
  unknownProvider,
} from "./request-keys.ts";
import { forwardPlaceHeader, maxKeysPerStep, sentSteps } from "./sent-steps.ts";
import { refuseDuplicateMembers, rewriteSteps, type StepCopy } from "./universal-body.ts";

/** Largest universal or compat body the proxy reads (provider-native bodies stream through). */
export const maxProxyJsonBytes = 10 * 1024 * 1024;

/** `POST /v1/{account}/{gateway}`. */
export async function proxyUniversal(
  request: Request,
  params: { account: string; gateway: string },
  caller: ProxyCaller,
  context: HandlerContext,
): Promise<Response> {
  const target = prepare(request, params.account, params.gateway, caller, context);
  const body = await afterLimit(target, readJsonBody(request, { maxBytes: maxProxyJsonBytes }));
  refuseDuplicateMembers(body.text);
  const steps = parseBody(universalBodySchema, body.value);
  checkRoute(caller.app, target.facts.route, false);
  checkProviders(
    caller.app,
    steps.map((step) => step.provider),
  );
  const plan = cachePlan(
    target.headers,
    target.appCacheKey,
    target.gateway,
    steps.map((step) => step.headers ?? {}),
  );
  await scopeCache(target, plan, body.text);
  const pools = await resolvePools(
    steps.map((step) => step.provider),
    target.gateway,
    context,
  );
  if (pools.every((pool) => pool.source === "missing")) throw noUsableKey(steps[0]!.provider);
  const sent = sentSteps(pools);
  if (sent.length === 0) throw providerAtCap(pools, context.now());
  const copies: StepCopy[] = sent.map(({ step, key }) => ({
    step,
    headers: stepHeaders(
      uncachedStepHeaders(plan, scopeStepHeaders(steps[step]!.headers, caller.app)),
      steps[step]!.provider,
      key?.key,
    ),
  }));
  target.headers.set("content-type", "application/json");
  forwardPlaceHeader(target.headers, target.facts.place ?? null, sent, steps.length);
  return forward(
    {
      target: target.url,
      // Each step keeps Cloudflare's meaning of the header (its time to first byte), so the
      // gateway can still move to the next step; the Worker sends no attempt of its own here.
      deadline: null,
      attempts: [
        { method: "POST", headers: target.headers, body: rewriteSteps(body.text, copies) },
      ],
      facts: {
        ...target.facts,
        mode: "universal",
        route: target.facts.route ?? "",
        steps: steps.map((step, index) => ({
          provider: step.provider,
          model: modelOf(step),
          keySource: pools[index]!.source,
        })),
        stepOf: (index) => sent[index]?.step ?? index,
      },
      secrets: secretsOf(pools, caller, context),
      observer: universalObserver(sent, context),
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
  checkRoute(caller.app, dynamic ? modelName : target.facts.route, dynamic);
  if (!dynamic) checkProviders(caller.app, [provider]);
  await scopeCache(
    target,
    cachePlan(target.headers, target.appCacheKey, target.gateway),
    body.text,
  );
  let pool: ResolvedPool = { provider, source: "byok", keys: [], blocked: null };
  if (!dynamic) {
    if (!isKnownProvider(provider)) throw unknownProvider();
    [pool] = (await resolvePools([provider], target.gateway, context)) as [ResolvedPool];
    if (pool.source === "missing") throw noUsableKey(provider);
    if (pool.blocked !== null) throw providerAtCap([pool], context.now());
  }
  target.headers.set("content-type", "application/json");
  const step: AskedStep = dynamic
    ? { provider: "", model: null, keySource: "byok" }
    : { provider, model: modelName, keySource: pool.source };
  // The app's own bytes: nothing in a compat body changes.
  const attempts = keyAttempts(pool, (key) => {
    const headers = new Headers(target.headers);
    if (key !== undefined) headers.set("authorization", `Bearer ${key.key}`);
    return { method: "POST", headers, body: body.text };
  });
  return forward(
    {
      target: target.url,
      // A dynamic route's models each have the gateway's timeout; a single provider's call is
      // held to the app's time as a whole, across the keys of its pool.
      deadline: dynamic ? null : target.deadline,
      attempts: attempts.map((attempt) => attempt.init),
      facts: {
        ...target.facts,
        mode: dynamic ? "dynamic" : "compat",
        route: target.facts.route ?? (dynamic ? model : ""),
        steps: dynamic ? [] : [step],
      },
      secrets: secretsOf([pool], caller, context),
      observer: keyObserver(
        provider,
        attempts.map((attempt) => attempt.key),
        context,
      ),
    },
    context,
  );
}

/** Largest provider-native body held back so it can be sent again with another key. */
const replayableBytes = 1024 * 1024;

/** `/v1/{account}/{gateway}/{provider}/{path}`: any method, the body streams through. */
export async function proxyNative(
  request: Request,
  params: { account: string; gateway: string; provider: string },
  caller: ProxyCaller,
  context: HandlerContext,
): Promise<Response> {
  const target = prepare(request, params.account, params.gateway, caller, context);
  const { provider } = params;
  // Nothing is read for the call before the limiter let it through (issue #23).
  await afterLimit(target, Promise.resolve());
  checkRoute(caller.app, target.facts.route, false);
  checkProviders(caller.app, [provider]);
  if (!isKnownProvider(provider)) throw unknownProvider();
  const [pool] = (await resolvePools([provider], target.gateway, context)) as [ResolvedPool];
  if (pool.source === "missing") throw noUsableKey(provider);
  if (pool.blocked !== null) throw providerAtCap([pool], context.now());
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  // A short body of known length is held so the next key can be sent; any other streams once.
  const length = Number(request.headers.get("content-length") ?? Number.NaN);
  const replayable = !hasBody || (length >= 0 && length <= replayableBytes);
  // A cached call is keyed by its body when the app sent no key: read it whole when it can be.
  const plan = cachePlan(target.headers, target.appCacheKey, target.gateway);
  const keyedByBody = plan === "scoped" && target.appCacheKey === undefined;
  const bytes =
    hasBody && replayable && (pool.keys.length > 1 || keyedByBody)
      ? await request.arrayBuffer()
      : undefined;
  await scopeCache(
    target,
    plan,
    !hasBody ? null : bytes === undefined ? undefined : new Uint8Array(bytes),
    request.method,
  );
  const usable = replayable ? pool : { ...pool, keys: pool.keys.slice(0, 1) };
  const attempts = keyAttempts(usable, (key) => {
    const headers = new Headers(target.headers);
    addProviderAuth(headers, provider, key?.key);
    return {
      method: request.method,
      headers,
      // The app's body streams through untouched (its length kept).
      body: hasBody ? (bytes ?? request.body) : null,
    };
  });
  return forward(
    {
      target: target.url,
      deadline: target.deadline,
      attempts: attempts.map((attempt) => attempt.init),
      facts: {
        ...target.facts,
        mode: "provider",
        route: target.facts.route ?? "",
        steps: [{ provider, model: null, keySource: pool.source }],
      },
      secrets: secretsOf([pool], caller, context),
      observer: keyObserver(
        provider,
        attempts.map((attempt) => attempt.key),
        context,
      ),
    },
    context,
  );
}

/** One request per key of the pool (at most {@link maxKeysPerStep}); one without a key for BYOK. */
function keyAttempts(
  pool: ResolvedPool,
  build: (key: UsableKey | undefined) => RequestInit,
): { init: RequestInit; key: UsableKey | undefined }[] {
  const keys: (UsableKey | undefined)[] =
    pool.keys.length === 0 ? [undefined] : pool.keys.slice(0, maxKeysPerStep);
  return keys.map((key) => ({ init: build(key), key }));
}
