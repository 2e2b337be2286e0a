/**
 * @module
 * Route → universal request: the JSON array of steps that AI Gateway's universal endpoint
 * (`POST /v1/{account}/{gateway}`) tries in order. Pure; run-time dependency free.
 */
import type { RouteConfig, StepConfig } from "../config/schema.ts";
import { getProvider } from "../providers/registry.ts";
import type { ChatRequest, ProviderAdapter } from "../providers/types.ts";

/** Per-step gateway settings; beat the request's `cf-aig-*` headers and the gateway's defaults. */
export interface UniversalStepConfig {
  requestTimeout?: number;
  maxAttempts?: number;
  retryDelay?: number;
  backoff?: "constant" | "linear" | "exponential";
}

/** One element of a universal request body. */
export interface UniversalStep {
  provider: string;
  endpoint: string;
  headers: Record<string, string>;
  /** The provider's own JSON request body. */
  query: Record<string, unknown>;
  config?: UniversalStepConfig;
}

/** Returns the key for a provider, or undefined when the gateway or the Worker supplies it. */
export type KeyLookup = (provider: string) => string | undefined;

export interface CompileUniversalOptions {
  /** Fills each step's provider auth header. Leave out when BYOK or the companion Worker holds keys. */
  readonly keyLookup?: KeyLookup;
}

/**
 * Compiles a route and a normalised chat request into a universal request body: one step per
 * route step, in route order.
 * @example compileUniversalRequest(config.gateways[0].routes.default, { messages })
 */
export function compileUniversalRequest(
  route: RouteConfig,
  request: ChatRequest,
  options: CompileUniversalOptions = {},
): UniversalStep[] {
  return route.steps.map((step) => compileStep(step, request, options));
}

/** One route step as a universal step. */
export function compileStep(
  step: StepConfig,
  request: ChatRequest,
  options: CompileUniversalOptions = {},
): UniversalStep {
  return universalStep(getProvider(step.provider), step, request, options);
}

/**
 * One route step as a universal step, with the step's provider adapter already in hand (the
 * client loads adapters as it needs them).
 */
export function universalStep(
  adapter: ProviderAdapter,
  step: StepConfig,
  request: ChatRequest,
  options: CompileUniversalOptions = {},
): UniversalStep {
  const key = options.keyLookup?.(step.provider);
  // Object.assign, not spread: spreading header objects is ~20× slower on Node 20, per step per call.
  const headers: Record<string, string> = Object.assign(
    { "content-type": "application/json" },
    adapter.defaultHeaders,
    key === undefined ? undefined : adapter.authHeaders(key),
  );
  if (step.cacheTtl !== undefined) headers["cf-aig-cache-ttl"] = String(step.cacheTtl);
  const universal: UniversalStep = {
    provider: step.provider,
    endpoint: adapter.endpoint(step.model, request),
    headers,
    query: adapter.requestBody(step.model, request),
  };
  const config = stepConfig(step);
  if (config !== undefined) universal.config = config;
  return universal;
}

function stepConfig(step: StepConfig): UniversalStepConfig | undefined {
  const config: UniversalStepConfig = {};
  if (step.timeoutMs !== undefined) config.requestTimeout = step.timeoutMs;
  if (step.retries !== undefined) config.maxAttempts = step.retries + 1;
  if (step.retryDelayMs !== undefined) config.retryDelay = step.retryDelayMs;
  if (step.backoff !== undefined) config.backoff = step.backoff;
  return Object.keys(config).length === 0 ? undefined : config;
}
