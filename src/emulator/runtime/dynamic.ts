/**
 * @module
 * Runs a dynamic route (`model: "dynamic/{route}"` on the compat endpoint): walks the deployed
 * version's element graph from `start`.
 * - `conditional`: follows `true`/`false` by its condition (see `conditions.ts`).
 * - `percentage`: picks an output like `"30%"` by the injected `random`, else `else`.
 * - `rate` / `rate_limit`: `limitType` `count` (requests) or `cost` (USD) per `window` (or
 *   `interval`) seconds, `technique` `sliding` (default) or `fixed`, one budget per value of
 *   `key` (e.g. `metadata.user_id`); over the limit it follows `fallback`, or refuses with 429.
 * - `model`: calls the provider with the node's `timeout` (ms) and `retries`; an answer is
 *   returned at once (`success`), a failure follows `fallback`.
 * - `end`: returns the last model's failure (nothing answered).
 * A failed model is logged when the route moves past it; the last one is what the client gets.
 */
import type { RouteElement } from "../../routes/index.ts";
import { GatewayRequestError, gatewayErrorCodes } from "../errors.ts";
import { activeVersion } from "../state/route-store.ts";
import type { CompatRequest } from "./compat-convert.ts";
import { buildCompatTarget } from "./compat-target.ts";
import { evaluateCondition, resolvePath } from "./conditions.ts";
import { recordFailure } from "./deliver-failure.ts";
import type { GatewayCall } from "./gateway-call.ts";
import type { ServingStep } from "./log-writer.ts";
import { serveAnswer, serveFailure } from "./serve-outcome.ts";
import { discardFailure, runStep, type StepFailure } from "./step-runner.ts";

/** Most elements visited for one request (a guard; graphs are checked to be acyclic). */
const maxVisits = 256;

interface PendingFailure {
  readonly serving: ServingStep;
  readonly failure: StepFailure;
  readonly attempts: number;
  readonly toClientError: ReturnType<typeof buildCompatTarget>["toClientError"];
}

/** Runs a gateway's dynamic route for a compat request. */
export async function runDynamicRoute(
  call: GatewayCall,
  compat: CompatRequest,
  routeName: string,
): Promise<void> {
  const route = call.gateway.routes.byName(routeName);
  if (route === undefined) {
    throw new GatewayRequestError(
      400,
      gatewayErrorCodes.routeNotFound,
      `Dynamic route "${routeName}" not found in gateway ${call.gateway.id}; create it (or use provider/model).`,
    );
  }
  const elements = new Map(
    activeVersion(route).version.elements.map((element) => [element.id, element]),
  );
  const context = {
    metadata: call.directives.metadata ?? {},
    body: compat.raw,
    headers: call.request.headers,
  };
  const costNodes: { key: string; spec: { technique: "fixed" | "sliding"; windowMs: number } }[] =
    [];
  let pending: PendingFailure | undefined;
  let modelIndex = 0;
  let current = [...elements.values()].find((element) => element.type === "start");
  for (let visits = 0; current !== undefined && visits < maxVisits; visits++) {
    const element: RouteElement = current;
    const follow = (port: string) => elements.get(element.outputs[port]?.elementId ?? "");
    const properties = element.properties ?? {};
    switch (element.type as string) {
      case "start":
        current = follow("next");
        break;
      case "conditional":
        current = follow(
          evaluateCondition(properties.conditions ?? properties.condition, context)
            ? "true"
            : "false",
        );
        break;
      case "percentage":
        current = follow(pickPercentage(element, call.services.random()));
        break;
      case "rate":
      case "rate_limit": {
        const limit = Number(properties.limit);
        const windowSeconds = Number(properties.window ?? properties.interval);
        if (!(limit >= 0) || !(windowSeconds > 0))
          throw invalidElement(element, "limit and window");
        const keyPath = typeof properties.key === "string" ? properties.key : "";
        const keyValue = keyPath === "" ? "" : String(resolvePath(keyPath, context) ?? "");
        const key = `${route.id}:${element.id}:${keyValue}`;
        const spec = {
          technique: properties.technique === "fixed" ? ("fixed" as const) : ("sliding" as const),
          windowMs: windowSeconds * 1000,
        };
        const now = call.services.now();
        const limits = call.gateway.routeLimits;
        const allowed =
          properties.limitType === "cost"
            ? limits.total(key, spec, now) < limit
            : limits.tryConsume(key, spec, now, limit);
        if (allowed && properties.limitType === "cost") costNodes.push({ key, spec });
        if (allowed) current = follow("success");
        else if (element.outputs.fallback) current = follow("fallback");
        else throw new GatewayRequestError(429, gatewayErrorCodes.rateLimited, "Rate limited");
        break;
      }
      case "model": {
        const provider = String(
          properties.provider ?? properties.aiGatewayDynamicRoutingProvider ?? "",
        );
        const model = String(properties.model ?? "");
        if (provider === "" || model === "") throw invalidElement(element, "provider and model");
        const timeout = Number(properties.timeout);
        const retries = Number(properties.retries);
        const target = buildCompatTarget(call, compat, provider, model, {
          ...(timeout > 0 ? { timeoutMs: timeout } : {}),
          ...(retries >= 0 ? { maxAttempts: Math.min(5, retries + 1) } : {}),
        });
        const serving: ServingStep = {
          step: modelIndex++,
          provider,
          model,
          endpoint: target.endpoint,
          requestType: "dynamic",
          requestBytes: target.request.body?.length ?? 0,
          requestContentType: "application/json",
        };
        if (pending) settle(call, pending);
        pending = undefined;
        const outcome = await runStep(call, target);
        if (outcome.kind !== "failed") {
          const delivered = await serveAnswer(call, target, serving, outcome, {
            toClientError: target.toClientError,
            ...(target.streamConverter ? { streamConverter: target.streamConverter } : {}),
          });
          const now = call.services.now();
          for (const node of costNodes) {
            if (delivered.cost)
              call.gateway.routeLimits.add(node.key, node.spec, now, delivered.cost);
          }
          return;
        }
        pending = {
          serving,
          failure: outcome.failure,
          attempts: outcome.attempts,
          toClientError: target.toClientError,
        };
        if (!element.outputs.fallback || call.signal.aborted) current = undefined;
        else current = follow("fallback");
        break;
      }
      case "end":
        current = undefined;
        break;
      default:
        throw invalidElement(element, "a known type");
    }
  }
  if (pending) {
    await serveFailure(call, pending.serving, pending.failure, pending.attempts, {
      toClientError: pending.toClientError,
    });
    return;
  }
  throw GatewayRequestError.invalid(
    `Dynamic route "${routeName}" reached its end without calling a model; give it a model element.`,
  );
}

/** Logs a failed model that a later one replaces, and releases its connection. */
function settle(call: GatewayCall, pending: PendingFailure): void {
  recordFailure(call, pending.serving, pending.failure, pending.attempts);
  discardFailure(pending.failure);
}

/** The output port for a draw in [0, 1): `"N%"` ports in order, then `else`. */
function pickPercentage(element: RouteElement, draw: number): string {
  let cumulative = 0;
  const point = draw * 100;
  for (const port of Object.keys(element.outputs)) {
    const match = /^(\d+(?:\.\d+)?)%$/.exec(port);
    if (!match) continue;
    cumulative += Number(match[1]);
    if (point < cumulative) return port;
  }
  if (element.outputs.else) return "else";
  throw invalidElement(element, "percentages that add up to 100, or an else output");
}

function invalidElement(element: RouteElement, needs: string): GatewayRequestError {
  return GatewayRequestError.invalid(
    `Dynamic route element "${element.id}" (${element.type}) is invalid: it needs ${needs}.`,
  );
}
