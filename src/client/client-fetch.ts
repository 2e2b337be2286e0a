/**
 * @module
 * `client.fetch`: a drop-in `fetch` for any SDK (`new OpenAI({ baseURL, fetch: client.fetch })`).
 * Requests to the client's gateway get the gateway token (unless they carry one) and an event id,
 * and each records one `CallEvent` (mode `fetch`) with the step the gateway names in
 * `cf-aig-step` / `cf-aig-provider` / `cf-aig-model`. The response is returned untouched; usage
 * is read from a clone once its body ends. Other URLs pass straight through.
 */

import { computeCost, getProvider, isKnownProvider } from "../providers/index.ts";
import type { ProviderAdapter, TokenUsage } from "../providers/types.ts";
import { resolveServedStep, servedStepHeaders } from "../routes/index.ts";
import { cacheStatusOf, compatAdapter } from "./attempt.ts";
import type { ClientContext } from "./context.ts";
import { ApiCallError } from "./errors.ts";
import type { CallEvent } from "./event.ts";
import { readUsage } from "./fetch-usage.ts";
import type { FetchFunction } from "./types.ts";

/** What the request says about itself. */
interface RequestFacts {
  /** Which endpoint family the request went to. */
  readonly kind: "universal" | "dynamic" | "compat" | "provider";
  /** `universal`, `compat`, a provider slug, or a dynamic route's name. */
  readonly route: string;
  /** A route the client knows, used to map the served step back to its index. */
  readonly knownRoute: boolean;
  readonly provider: string | null;
  readonly model: string | null;
  /** Universal body steps (provider/model), to name the step `cf-aig-step` points at. */
  readonly universalSteps: readonly { provider: string; model: string | null }[];
}

/** Builds `client.fetch` for a client. */
export function createClientFetch(context: ClientContext): FetchFunction {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const path = gatewayPath(context, url);
    if (path === undefined) return context.fetch(input, init);

    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    for (const [name, value] of new Headers(init?.headers)) headers.set(name, value);
    const token = context.options.gatewayToken;
    if (token !== undefined && !headers.has("cf-aig-authorization")) {
      headers.set("cf-aig-authorization", `Bearer ${token}`);
    }
    const id = headers.get("cf-aig-event-id") ?? context.generateId();
    headers.set("cf-aig-event-id", id);
    const facts = requestFacts(context, path, init?.body);
    const startedAt = context.now();
    const base = { id, startedAt, facts };

    let response: Response;
    try {
      response = await context.fetch(input, { ...init, headers });
    } catch (error) {
      const aborted = init?.signal?.aborted === true || (error as Error)?.name === "AbortError";
      record(context, base, null, { status: 0, errorCode: aborted ? "aborted" : "network_error" });
      throw error;
    }
    const served = servedFacts(context, facts, response.headers);
    if (!response.ok) {
      const errorCode = ApiCallError.fromResponse({ status: response.status, url }).code;
      record(context, base, response, { ...served, status: response.status, errorCode });
      return response;
    }
    const adapter = adapterOf(facts, served.provider);
    readUsage(response.clone(), adapter).then((usage) =>
      record(context, base, response, { ...served, status: response.status, ...usage }),
    );
    return response;
  };
}

/** The path under the client's gateway URL, or undefined for other URLs. */
function gatewayPath(context: ClientContext, url: string): string | undefined {
  const withoutQuery = url.split("?")[0] ?? url;
  if (withoutQuery === context.gatewayUrl) return "";
  if (!withoutQuery.startsWith(`${context.gatewayUrl}/`)) return undefined;
  return withoutQuery.slice(context.gatewayUrl.length + 1);
}

function requestFacts(context: ClientContext, path: string, body: unknown): RequestFacts {
  const json = parseBody(body);
  if (path === "" || path === "/") {
    const steps = Array.isArray(json)
      ? json.map((step: Record<string, unknown>) => ({
          provider: String(step?.provider ?? ""),
          model: modelOf(step?.query),
        }))
      : [];
    return {
      kind: "universal",
      route: "universal",
      knownRoute: false,
      provider: null,
      model: null,
      universalSteps: steps,
    };
  }
  const model = modelOf(json);
  if (path.startsWith("compat/")) {
    const dynamic = model?.match(/^dynamic\/(.+)$/)?.[1];
    if (dynamic !== undefined) {
      const knownRoute = context.routes.has(dynamic);
      return {
        kind: "dynamic",
        route: dynamic,
        knownRoute,
        provider: null,
        model: null,
        universalSteps: [],
      };
    }
    const slash = model?.indexOf("/") ?? -1;
    return {
      kind: "compat",
      route: "compat",
      knownRoute: false,
      provider: model && slash > 0 ? model.slice(0, slash) : null,
      model: model && slash > 0 ? model.slice(slash + 1) : model,
      universalSteps: [],
    };
  }
  const provider = path.split("/")[0] ?? "";
  return {
    kind: "provider",
    route: provider,
    knownRoute: false,
    provider,
    model,
    universalSteps: [],
  };
}

/** Which step served, by the gateway's headers. */
function servedFacts(
  context: ClientContext,
  facts: RequestFacts,
  headers: Headers,
): Pick<CallEvent, "step" | "provider" | "model"> {
  const named = servedStepHeaders(headers);
  const index = named.step && /^\d+$/.test(named.step) ? Number(named.step) : null;
  if (facts.knownRoute) {
    const route = context.routes.get(facts.route);
    const found = route === undefined ? undefined : resolveServedStep(route, named);
    if (found !== undefined) {
      return { step: found.index, provider: found.step.provider, model: found.step.model };
    }
  }
  // A universal answer without cf-aig-step came from step 0; a provider-native or compat call
  // has one step; a dynamic route the client does not know stays unmapped without the header.
  const step = index ?? (facts.kind === "dynamic" ? null : 0);
  const sentStep = step === null ? undefined : facts.universalSteps[step];
  return {
    step,
    provider: named.provider ?? sentStep?.provider ?? facts.provider,
    model: named.model ?? sentStep?.model ?? facts.model,
  };
}

/** The adapter that reads the answer's format: the provider's own, or OpenAI's for compat. */
function adapterOf(facts: RequestFacts, provider: string | null): ProviderAdapter | undefined {
  if (facts.kind === "dynamic" || facts.kind === "compat") return compatAdapter;
  return provider !== null && isKnownProvider(provider) ? getProvider(provider) : undefined;
}

interface Outcome extends Partial<Pick<CallEvent, "step" | "provider" | "model">> {
  readonly status: number;
  readonly errorCode?: string | null;
  readonly usage?: TokenUsage | null;
  readonly streamed?: boolean;
}

function record(
  context: ClientContext,
  base: { id: string; startedAt: number; facts: RequestFacts },
  response: Response | null,
  outcome: Outcome,
): void {
  const cacheStatus = response === null ? null : cacheStatusOf(response.headers);
  const usage = outcome.usage ?? null;
  const provider = outcome.provider ?? base.facts.provider;
  const model = outcome.model ?? base.facts.model;
  const errorCode = outcome.errorCode ?? null;
  const cost =
    usage === null || provider === null || model === null
      ? null
      : cacheStatus === "HIT"
        ? 0
        : (computeCost(context.options.prices ?? {}, provider, model, usage) ?? null);
  context.record({
    time: new Date(base.startedAt).toISOString(),
    id: base.id,
    gateway: context.gatewayId,
    route: base.facts.route,
    mode: "fetch",
    step: errorCode === null ? (outcome.step ?? null) : null,
    provider,
    model,
    status: outcome.status,
    ok: errorCode === null,
    cacheStatus,
    latencyMs: Math.max(0, context.now() - base.startedAt),
    tokensIn: usage?.tokensIn ?? null,
    tokensOut: usage?.tokensOut ?? null,
    cost,
    errorCode,
    logId: response?.headers.get("cf-aig-log-id") ?? null,
    attempts: 1,
    streamed: outcome.streamed ?? false,
  });
}

function parseBody(body: unknown): unknown {
  const text =
    typeof body === "string"
      ? body
      : body instanceof Uint8Array || body instanceof ArrayBuffer
        ? new TextDecoder().decode(body)
        : undefined;
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function modelOf(json: unknown): string | null {
  if (typeof json !== "object" || json === null) return null;
  const model = (json as Record<string, unknown>).model;
  return typeof model === "string" ? model : null;
}
