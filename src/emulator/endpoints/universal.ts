/**
 * @module
 * `POST /v1/{account}/{gateway}`: the universal endpoint. The body is an array of steps
 * `{provider, endpoint, headers, query, config?}` tried in order. Each step gets its retries
 * (see `step/retry.ts`) before the next step is tried; a step that fails (see
 * `step/step-runner.ts`) is logged and the next one runs. The first answer is passed through
 * unchanged with `cf-aig-step` set to its index; when every step fails, the last step's error is
 * returned with the last index.
 * A step with `provider: "compat"` is a unified-API request (`model: "provider/model"` or
 * `"dynamic/<route>"`) answered in OpenAI's shape, as `ai-gateway-provider`'s `unified()` sends.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  describeDuplicate,
  findDuplicateMember,
  memberText,
  scanUniversalBody,
  type UniversalBodyText,
} from "../../wire/universal-body.ts";
import { buildCompatTarget } from "../compat/compat-target.ts";
import {
  type CompatRequest,
  parseCompatRequest,
  splitCompatModel,
} from "../compat/openai-shape.ts";
import { recordFailure } from "../delivery/deliver-failure.ts";
import type { ServingStep } from "../delivery/log-writer.ts";
import { serveAnswer, serveFailure } from "../delivery/serve-outcome.ts";
import {
  deliverRouteFailure,
  type RunRouteOptions,
  runDynamicRoute,
} from "../dynamic-routes/run-route.ts";
import { GatewayRequestError } from "../errors.ts";
import { headerValue, parseJson, readRequestBody } from "../http/io.ts";
import { type Directives, withStepDirectives } from "../request/directives.ts";
import { type GatewayCall, openGatewayCall } from "../request/gateway-call.ts";
import { asksForStream, modelOf } from "../request/model-name.ts";
import { withoutTrailingCommas } from "../request/trailing-commas.ts";
import { readUniversalBody, type UniversalStepInput } from "../request/universal-body.ts";
import type { EmulatorServices } from "../services.ts";
import { cachePolicyFor } from "../step/cache-policy.ts";
import { applyCredential } from "../step/credentials.ts";
import { stepRetryPolicy } from "../step/retry.ts";
import { discardFailure, runStep } from "../step/step-runner.ts";
import type { StepTarget } from "../step/step-target.ts";
import type { UpstreamRequest } from "../transport/attempt.ts";
import { forwardedHeaders } from "../transport/upstreams.ts";

/** One universal step, ready to run: a provider request, or a dynamic route (compat steps). */
type StepPlan =
  | { readonly kind: "target"; readonly target: StepTarget }
  | {
      readonly kind: "route";
      readonly route: string;
      readonly compat: CompatRequest;
      readonly options: Omit<RunRouteOptions, "last" | "step">;
    };

/** Handles a universal request. Throws `GatewayRequestError` for refusals before forwarding. */
export async function handleUniversal(
  services: EmulatorServices,
  request: IncomingMessage,
  response: ServerResponse,
  params: { account: string; gateway: string },
): Promise<void> {
  const call = openGatewayCall(services, request, response, params);
  let text = (await readRequestBody(request)).toString("utf8");
  let json = parseJson(text);
  if (!json.ok) {
    // Cloudflare's request-handling examples leave trailing commas in their bodies.
    const repaired = withoutTrailingCommas(text);
    json = parseJson(repaired);
    if (json.ok) text = repaired;
  }
  if (!json.ok) {
    throw GatewayRequestError.invalid(
      "Malformed universal request: the body must be a JSON array of steps {provider, endpoint, headers, query}.",
    );
  }
  const written = scanUniversalBody(text);
  refuseDuplicates(written);
  const steps = readUniversalBody(json.value);
  // Each step's query goes upstream as the client wrote it, not re-serialised.
  const queries = written.steps.map((members) => members && memberText(members, "query"));
  const plans = steps.map((step, index) => planStep(call, step, index, queries[index]));
  const contentType = headerValue(request, "content-type");
  for (const [index, plan] of plans.entries()) {
    const last = index === plans.length - 1;
    if (plan.kind === "route") {
      const outcome = await runDynamicRoute(call, plan.compat, plan.route, {
        ...plan.options,
        step: index,
        last,
      });
      if (outcome.kind === "served") return;
      if (last || call.signal.aborted) {
        await deliverRouteFailure(call, outcome);
        return;
      }
      recordFailure(call, outcome.serving, outcome.failure, outcome.attempts);
      discardFailure(outcome.failure);
      continue;
    }
    const { target } = plan;
    const serving: ServingStep = {
      step: index,
      provider: target.provider,
      model: target.model,
      endpoint: target.endpoint,
      requestType: "universal",
      credential: target.credential,
      requestBytes: target.request.body?.length ?? 0,
      ...(target.request.body ? { requestBody: target.request.body } : {}),
      ...(contentType ? { requestContentType: contentType } : {}),
    };
    const outcome = await runStep(call, target, { last });
    if (outcome.kind !== "failed") {
      await serveAnswer(call, target, serving, outcome);
      return;
    }
    if (last || call.signal.aborted) {
      await serveFailure(call, target, serving, outcome.failure, outcome.attempts);
      return;
    }
    recordFailure(call, serving, outcome.failure, outcome.attempts);
    discardFailure(outcome.failure);
  }
}

/** A member written twice would mean one thing here and another upstream: a 400 (emulator choice). */
function refuseDuplicates(written: UniversalBodyText): void {
  const duplicate = findDuplicateMember(written);
  if (duplicate !== undefined) {
    throw GatewayRequestError.invalid(
      `Malformed universal request: ${describeDuplicate(duplicate)}.`,
    );
  }
}

function planStep(
  call: GatewayCall,
  step: UniversalStepInput,
  index: number,
  queryText: string | undefined,
): StepPlan {
  const directives = withStepDirectives(call.directives, step.headers, `step ${index}`);
  if (step.provider !== "compat")
    return { kind: "target", target: buildTarget(call, step, directives, queryText) };
  // Cloudflare's unified API as a step (what ai-gateway-provider's unified() sends). The
  // dynamic-routing page's Workers example spells it `chat/completion`; both are accepted.
  const endpoint = step.endpoint.replace(/^\/+/, "").replace(/^v1\//, "");
  if (endpoint !== "chat/completions" && endpoint !== "chat/completion") {
    throw GatewayRequestError.invalid(
      `Step ${index} uses provider "compat", whose only endpoint is chat/completions; got "${step.endpoint.slice(0, 200)}".`,
    );
  }
  const compat = parseCompatRequest(step.query);
  const model = splitCompatModel(compat.model);
  const callerHeaders = Object.entries(step.headers);
  if (model.kind === "dynamic") {
    return { kind: "route", route: model.route, compat, options: { directives, callerHeaders } };
  }
  const target = buildCompatTarget(call, compat, model.provider, model.model, {
    directives,
    callerHeaders,
    credentials: "caller-or-stored",
    ...(step.config?.requestTimeout === undefined ? {} : { timeoutMs: step.config.requestTimeout }),
    ...(step.config?.maxAttempts === undefined ? {} : { maxAttempts: step.config.maxAttempts }),
  });
  return { kind: "target", target };
}

function buildTarget(
  call: GatewayCall,
  step: UniversalStepInput,
  directives: Directives,
  queryText: string | undefined,
): StepTarget {
  const { services, gateway } = call;
  const endpoint = step.endpoint.replace(/^\/+/, "");
  const url = services.upstreams.url(step.provider, endpoint);
  const body = Buffer.from(queryText ?? JSON.stringify(step.query));
  const headers = forwardedHeaders(Object.entries(step.headers));
  headers["content-type"] ??= "application/json";
  const credential = applyCredential(call, headers, step.provider, directives.byokAlias);
  const request: UpstreamRequest = { url, method: "POST", headers, body };
  const cache = cachePolicyFor(call, directives, {
    provider: step.provider,
    method: "POST",
    endpoint,
    body,
  });
  return {
    provider: step.provider,
    model: modelOf(step.provider, endpoint, step.query),
    endpoint,
    request,
    credential,
    streaming: asksForStream(endpoint, step.query),
    timeoutMs:
      step.config?.requestTimeout ?? directives.requestTimeoutMs ?? services.defaultTimeoutMs,
    retry: stepRetryPolicy(
      {
        maxAttempts: step.config?.maxAttempts,
        delayMs: step.config?.retryDelay,
        backoff: step.config?.backoff,
      },
      directives,
      gateway.settings,
    ),
    ...(cache ? { cache } : {}),
  };
}
