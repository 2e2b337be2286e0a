/**
 * @module
 * One HTTP attempt at the gateway: the URL and body for the plan (a universal chain, or the
 * compat endpoint with `dynamic/<route>`), the request itself, and what the response headers
 * say: which step served (`cf-aig-step`, `cf-aig-provider`, `cf-aig-model`), the cache status
 * and the log id.
 */

import type { RouteConfig } from "../config/schema.ts";
import { createOpenAiCompatibleAdapter } from "../providers/index.ts";
import type { ChatRequest, ProviderAdapter } from "../providers/types.ts";
import {
  compileStep,
  dynamicModelName,
  resolveServedStep,
  servedStepHeaders,
} from "../routes/index.ts";
import type { ChainEntry } from "./chain.ts";
import type { ClientContext } from "./context.ts";

/** What one attempt sends: a chain the client chose, or a route the gateway holds. */
export type AttemptPlan =
  | { readonly kind: "universal"; readonly entries: readonly ChainEntry[] }
  | { readonly kind: "dynamic"; readonly routeName: string; readonly route: RouteConfig };

/** The step that served, and its position in the order the gateway tried steps. */
export interface ServedPosition {
  readonly entry: ChainEntry;
  readonly position: number;
}

/** A response whose headers have arrived; the body is unread. */
export interface SentAttempt {
  readonly plan: AttemptPlan;
  readonly url: string;
  readonly response: Response;
  /** The steps in the order the gateway tries them (the chain, or the route's order). */
  readonly order: readonly ChainEntry[];
  /** The serving step, when the headers name one. */
  readonly served: ServedPosition | null;
  readonly cacheStatus: "HIT" | "MISS" | null;
  readonly logId: string | null;
}

/**
 * The OpenAI-shaped compat endpoint (`/compat/chat/completions`), used for dynamic routes.
 * Sends `max_tokens`, which every compat provider accepts.
 */
export const compatAdapter: ProviderAdapter = createOpenAiCompatibleAdapter({
  slug: "compat",
  displayName: "The gateway's compat endpoint",
  upstreamBaseUrl: "https://gateway.ai.cloudflare.com/",
  chatPath: "compat/chat/completions",
});

/** The order in which the gateway tries a plan's steps. */
export function planOrder(plan: AttemptPlan): readonly ChainEntry[] {
  return plan.kind === "universal"
    ? plan.entries
    : plan.route.steps.map((step, index) => ({ index, step }));
}

/** The URL and JSON body of an attempt. */
export function attemptRequest(
  context: ClientContext,
  plan: AttemptPlan,
  request: ChatRequest,
): { url: string; body: unknown } {
  if (plan.kind === "dynamic") {
    return {
      url: context.compatUrl,
      body: compatAdapter.requestBody(dynamicModelName(plan.routeName), request),
    };
  }
  const keyLookup = context.options.keyLookup;
  return {
    url: context.gatewayUrl,
    body: plan.entries.map((entry) =>
      compileStep(entry.step, request, keyLookup === undefined ? {} : { keyLookup }),
    ),
  };
}

/**
 * Sends one attempt and reads its headers. Rejects with whatever `fetch` rejects with (the
 * caller turns it into a `NetworkError`, `TimeoutError`, `AbortedError` or deadline error).
 */
export async function sendAttempt(
  context: ClientContext,
  plan: AttemptPlan,
  request: ChatRequest,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<SentAttempt> {
  const { url, body } = attemptRequest(context, plan, request);
  const response = await context.fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    signal,
  });
  const order = planOrder(plan);
  return {
    plan,
    url,
    response,
    order,
    served: servedPosition(plan, order, response),
    cacheStatus: cacheStatusOf(response.headers),
    logId: response.headers.get("cf-aig-log-id"),
  };
}

function servedPosition(
  plan: AttemptPlan,
  order: readonly ChainEntry[],
  response: Response,
): ServedPosition | null {
  const named = servedStepHeaders(response.headers);
  const sentSteps = { steps: order.map((entry) => entry.step) };
  const found = resolveServedStep(sentSteps, named);
  if (found !== undefined) return { entry: order[found.index]!, position: found.index };
  const saysNothing = !named.step && !named.provider && !named.model;
  // Without any served-step header a universal answer came from the first step, as Cloudflare's
  // own provider library assumes; an error, or a dynamic route, stays unknown here.
  if (plan.kind === "universal" && saysNothing && response.ok && order[0] !== undefined) {
    return { entry: order[0], position: 0 };
  }
  return null;
}

/** `cf-aig-cache-status`, normalised; null when absent or unknown. */
export function cacheStatusOf(headers: Headers): "HIT" | "MISS" | null {
  const status = headers.get("cf-aig-cache-status")?.trim().toUpperCase();
  return status === "HIT" || status === "MISS" ? status : null;
}
