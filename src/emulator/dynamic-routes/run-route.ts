/**
 * @module
 * Runs a dynamic route (`model: "dynamic/{route}"` on the compat endpoint, or in a universal step
 * with `provider: "compat"`): walks the deployed version's element graph from `start`.
 * - `conditional`: follows `true`/`false` by its condition (see `conditions.ts`).
 * - `percentage`, `rate` / `rate_limit`: see `percentage-and-rate.ts`; a rate element over its
 *   limit follows `fallback`, or refuses with 429.
 * - `model`: calls the provider with the node's `timeout` (ms) and `retries` and the key stored
 *   for it in the gateway (BYOK); an answer is returned at once (`success`), a failure follows
 *   `fallback`. A provider without a stored key fails the node without a call (400, code 2040).
 * - `end`: returns the last model's failure (nothing answered).
 *
 * Cloudflare runs dynamic routes only on authenticated gateways with stored keys; anything else is
 * refused (401, code 2009) unless the emulator runs `lenient`, where the caller's `Authorization`
 * is sent when no key is stored.
 */
import type { RouteElement } from "../../routes/index.ts";
import { buildCompatTarget } from "../compat/compat-target.ts";
import type { CompatRequest } from "../compat/openai-shape.ts";
import { recordFailure } from "../delivery/deliver-failure.ts";
import type { ServingStep } from "../delivery/log-writer.ts";
import { serveAnswer, serveFailure } from "../delivery/serve-outcome.ts";
import { GatewayRequestError, gatewayErrorCodes } from "../errors.ts";
import type { ClientFormat } from "../formats/client-format.ts";
import { rawHeaderPairs } from "../http/io.ts";
import type { Directives } from "../request/directives.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import { activeVersion } from "../state/route-store.ts";
import { missingKeyError, storedKey } from "../step/credentials.ts";
import { discardFailure, runStep } from "../step/step-runner.ts";
import type { StepFailure, StepTarget } from "../step/step-target.ts";
import { evaluateCondition } from "./conditions.ts";
import { type CostNode, invalidElement, passRate, pickPercentage } from "./percentage-and-rate.ts";

/** Most elements visited for one request (a guard; graphs are checked to be acyclic). */
const maxVisits = 256;

/** A model that failed; the last one is what the client gets when nothing answers. */
export interface RouteFailure {
  readonly kind: "failed";
  readonly serving: ServingStep;
  readonly failure: StepFailure;
  readonly attempts: number;
  readonly target: Pick<StepTarget, "toClientError">;
}

export type RouteOutcome = { readonly kind: "served" } | RouteFailure;

export interface RunRouteOptions {
  readonly directives: Directives;
  readonly callerHeaders: readonly (readonly [string, string])[];
  /** `cf-aig-step` to report; default: the model element's position in the walk. */
  readonly step?: number;
  /** No later universal step follows: the final model's last attempt has no timeout. */
  readonly last: boolean;
  /** The shape the client speaks (REST `/ai/v1/messages`); OpenAI chat completions by default. */
  readonly format?: ClientFormat;
}

/** Runs a route for the compat endpoint and answers the client, answer or failure. */
export async function serveDynamicRoute(
  call: GatewayCall,
  compat: CompatRequest,
  routeName: string,
): Promise<void> {
  const pairs = rawHeaderPairs(call.request.rawHeaders);
  const outcome = await runDynamicRoute(call, compat, routeName, {
    directives: call.directives,
    callerHeaders: pairs,
    last: true,
  });
  if (outcome.kind === "failed") await deliverRouteFailure(call, outcome);
}

/** Answers with the last model's failure. */
export async function deliverRouteFailure(call: GatewayCall, failed: RouteFailure): Promise<void> {
  await serveFailure(call, failed.target, failed.serving, failed.failure, failed.attempts);
}

/**
 * Walks a gateway's dynamic route: answers the client when a model answers, else returns the
 * last failure (already logged only when a later model replaced it).
 * @throws GatewayRequestError 400 (2005) for an unknown route, 401 (2009) on a gateway
 *   Cloudflare would not run it on.
 */
export async function runDynamicRoute(
  call: GatewayCall,
  compat: CompatRequest,
  routeName: string,
  options: RunRouteOptions,
): Promise<RouteOutcome> {
  const route = call.gateway.routes.byName(routeName);
  if (route === undefined) {
    throw new GatewayRequestError(
      400,
      gatewayErrorCodes.routeNotFound,
      `Dynamic route "${routeName}" not found in gateway ${call.gateway.id}; create it (or use provider/model).`,
    );
  }
  const { lenient } = call.services;
  if (!lenient && !call.gateway.settings.authentication) {
    throw new GatewayRequestError(
      401,
      gatewayErrorCodes.unauthorized,
      `Unauthorized: dynamic routes run only on authenticated gateways; turn on authentication for gateway ${call.gateway.id} and send cf-aig-authorization.`,
    );
  }
  const elements = new Map(
    activeVersion(route).version.elements.map((element) => [element.id, element]),
  );
  const context = {
    metadata: options.directives.metadata ?? {},
    body: compat.raw,
    headers: call.request.headers,
  };
  const costNodes: CostNode[] = [];
  let pending: RouteFailure | undefined;
  let modelIndex = 0;
  let current = [...elements.values()].find((element) => element.type === "start");
  for (let visits = 0; current !== undefined && visits < maxVisits; visits++) {
    const element: RouteElement = current;
    const follow = (port: string) => elements.get(element.outputs[port]?.elementId ?? "");
    switch (element.type as string) {
      case "start":
        current = follow("next");
        break;
      case "conditional": {
        const properties = element.properties ?? {};
        const condition = properties.conditions ?? properties.condition;
        current = follow(evaluateCondition(condition, context) ? "true" : "false");
        break;
      }
      case "percentage":
        current = follow(pickPercentage(element, call.services.random()));
        break;
      case "rate":
      case "rate_limit": {
        const { allowed, costNode } = passRate(call, route.id, element, context);
        if (costNode) costNodes.push(costNode);
        if (allowed) current = follow("success");
        else if (element.outputs.fallback) current = follow("fallback");
        else throw new GatewayRequestError(429, gatewayErrorCodes.rateLimited, "Rate limited");
        break;
      }
      case "model": {
        const fallback = follow("fallback");
        const last = options.last && (fallback === undefined || fallback.type === "end");
        const step = options.step ?? modelIndex;
        modelIndex++;
        if (pending) settle(call, pending);
        pending = undefined;
        const result = await runModel(call, compat, element, { ...options, step, last });
        if (result.kind === "served") {
          chargeCost(call, costNodes, result.cost);
          return { kind: "served" };
        }
        pending = result;
        current = call.signal.aborted ? undefined : fallback;
        break;
      }
      case "end":
        current = undefined;
        break;
      default:
        throw invalidElement(element, "a known type");
    }
  }
  if (pending) return pending;
  throw GatewayRequestError.invalid(
    `Dynamic route "${routeName}" reached its end without calling a model; give it a model element.`,
  );
}

async function runModel(
  call: GatewayCall,
  compat: CompatRequest,
  element: RouteElement,
  options: RunRouteOptions & { step: number },
): Promise<{ kind: "served"; cost: number | undefined } | RouteFailure> {
  const properties = element.properties ?? {};
  const provider = String(properties.provider ?? properties.aiGatewayDynamicRoutingProvider ?? "");
  const model = String(properties.model ?? "");
  if (provider === "" || model === "") throw invalidElement(element, "provider and model");
  const timeout = Number(properties.timeout);
  const retries = Number(properties.retries);
  const alias = options.directives.byokAlias;
  const hasKey = storedKey(call, provider, alias) !== undefined;
  const compatBody = Buffer.from(JSON.stringify(compat.raw));
  const serving = (endpoint: string, bytes: number): ServingStep => ({
    step: options.step,
    provider,
    model,
    endpoint,
    requestType: "dynamic",
    requestBytes: bytes,
    requestBody: compatBody,
    requestContentType: "application/json",
  });
  if (!hasKey && !call.services.lenient) {
    // Cloudflare's dynamic routes use stored keys only: no call is made without one.
    const error = missingKeyError(call, provider, alias ?? "default");
    return {
      kind: "failed",
      serving: serving("", 0),
      failure: { kind: "refused", error, reason: "byok_missing" },
      attempts: 0,
      target: {},
    };
  }
  const target = buildCompatTarget(call, compat, provider, model, {
    directives: options.directives,
    callerHeaders: options.callerHeaders,
    credentials: call.services.lenient ? "caller-or-stored" : "stored-only",
    ...(timeout > 0 ? { timeoutMs: timeout } : {}),
    ...(retries >= 0 ? { maxAttempts: Math.min(5, retries + 1) } : {}),
    ...(options.format ? { format: options.format } : {}),
  });
  const outcome = await runStep(call, target, { last: options.last });
  const servingStep: ServingStep = {
    ...serving(target.endpoint, target.request.body?.length ?? 0),
    credential: target.credential,
  };
  if (outcome.kind !== "failed") {
    const delivered = await serveAnswer(call, target, servingStep, outcome);
    return { kind: "served", cost: delivered.cost };
  }
  return {
    kind: "failed",
    serving: servingStep,
    failure: outcome.failure,
    attempts: outcome.attempts,
    target,
  };
}

function chargeCost(call: GatewayCall, nodes: readonly CostNode[], cost: number | undefined): void {
  if (!cost) return;
  const now = call.services.now();
  for (const node of nodes) call.gateway.routeLimits.add(node.key, node.spec, now, cost);
}

/** Logs a failed model that a later one replaces, and releases its connection. */
function settle(call: GatewayCall, pending: RouteFailure): void {
  recordFailure(call, pending.serving, pending.failure, pending.attempts);
  discardFailure(pending.failure);
}
