/**
 * @module
 * What `createGatewayFetch` reads off a request and its answer's headers: the endpoint family,
 * route, provider and model a request names (its path and body), and the step that served (the
 * gateway's `cf-aig-step` / `cf-aig-provider` / `cf-aig-model`, mapped through a dynamic route's
 * steps when the client knows them).
 */

import { resolveServedStep } from "../routes/served-step.ts";
import type { CallEvent } from "./event.ts";
import type { RouteInput } from "./types.ts";

/** What the request says about itself. */
export interface RequestFacts {
  /** Which endpoint family the request went to (`rest`: one model on the REST API). */
  readonly kind: "universal" | "dynamic" | "compat" | "provider" | "rest";
  /** `universal`, `compat`, a provider slug, or a dynamic route's name. */
  readonly route: string;
  readonly provider: string | null;
  readonly model: string | null;
  /** Universal body steps (provider/model), to name the step `cf-aig-step` points at. */
  readonly universalSteps: readonly { provider: string; model: string | null }[];
  /** The adapter that reads a REST answer's usage (REST requests only). */
  readonly adapter?: string | undefined;
}

export function requestFacts(path: string, body: unknown): RequestFacts {
  const json = parseBody(body);
  const none = { provider: null, model: null, universalSteps: [] };
  if (path === "" || path === "/") {
    return {
      ...none,
      kind: "universal",
      route: "universal",
      universalSteps: Array.isArray(json)
        ? json.map((step: Record<string, unknown>) => ({
            provider: String(step?.provider ?? ""),
            model: modelOf(step?.query),
          }))
        : [],
    };
  }
  const model = modelOf(json);
  if (path.startsWith("compat/")) {
    const dynamic = model?.match(/^dynamic\/(.+)$/)?.[1];
    if (dynamic !== undefined) return { ...none, kind: "dynamic", route: dynamic };
    const slash = model?.indexOf("/") ?? -1;
    return {
      ...none,
      kind: "compat",
      route: "compat",
      provider: model && slash > 0 ? model.slice(0, slash) : null,
      model: model && slash > 0 ? model.slice(slash + 1) : model,
    };
  }
  const provider = path.split("/")[0] ?? "";
  return { ...none, kind: "provider", route: provider, provider, model };
}

/** Which step served, by the gateway's headers. */
export function servedFacts(
  routes: Readonly<Record<string, RouteInput>> | undefined,
  facts: RequestFacts,
  headers: Headers,
): Pick<CallEvent, "step" | "provider" | "model"> {
  const named = {
    step: headers.get("cf-aig-step"),
    provider: headers.get("cf-aig-provider"),
    model: headers.get("cf-aig-model"),
  };
  const route =
    facts.kind === "dynamic" && routes !== undefined && Object.hasOwn(routes, facts.route)
      ? routes[facts.route]
      : undefined;
  if (route !== undefined) {
    const steps = Array.isArray(route) ? route : (route as { steps: [] }).steps;
    const found = resolveServedStep({ steps }, named);
    if (found !== undefined) {
      return { step: found.index, provider: found.step.provider, model: found.step.model };
    }
  }
  // A universal answer without cf-aig-step came from step 0; a provider-native or compat call
  // has one step; a dynamic route the client does not know stays unmapped without the header.
  const index = named.step && /^\d+$/.test(named.step) ? Number(named.step) : null;
  const step = index ?? (facts.kind === "dynamic" ? null : 0);
  const sentStep = step === null ? undefined : facts.universalSteps[step];
  return {
    step,
    provider: named.provider ?? sentStep?.provider ?? facts.provider,
    model: named.model ?? sentStep?.model ?? facts.model,
  };
}

export function parseBody(body: unknown): unknown {
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

export function modelOf(json: unknown): string | null {
  const model = (json as { model?: unknown } | null)?.model;
  return typeof model === "string" ? model : null;
}
