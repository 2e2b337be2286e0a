/**
 * @module
 * The client's resolved settings, shared by `chat`, `stream` and `fetch`: gateway URLs, routes
 * checked once at construction, call-time defaults for `fetch`, `now` and ids, the breaker and a
 * recorder that can never throw into a call.
 */

import type { RouteConfig, StepConfig } from "../config/schema.ts";
import { BudgetLedger } from "../routes/budget-ledger.ts";
import { CircuitBreaker } from "./breaker.ts";
import { InvalidOptionsError, UnknownRouteError } from "./errors.ts";
import type { CallEvent } from "./event.ts";
import { routeChainProblems } from "./policy-route.ts";
import { callSafely } from "./recorder.ts";
import { defaultSleep } from "./scope.ts";
import type { FetchFunction, GatewayClientOptions, RouteInput, SleepFunction } from "./types.ts";

/** Cloudflare's AI Gateway origin. */
export const defaultBaseUrl = "https://gateway.ai.cloudflare.com";

/** Defaults for the client's timing options. */
export const clientDefaults = {
  deadlineMs: 120_000,
  streamIdleTimeoutMs: 60_000,
  maxAttempts: 3,
  retryDelayMs: 250,
  maxRetryDelayMs: 5_000,
} as const;

/** Everything a call needs from the client. */
export interface ClientContext {
  readonly options: GatewayClientOptions;
  readonly gatewayId: string;
  /** `${baseUrl}/v1/${accountId}/${gatewayId}`: the universal endpoint and every path's prefix. */
  readonly gatewayUrl: string;
  readonly compatUrl: string;
  readonly routes: ReadonlyMap<string, RouteConfig>;
  readonly breaker: CircuitBreaker | undefined;
  /** What the routes' policy budgets have spent (universal calls). */
  readonly budgetLedger: BudgetLedger;
  fetch: FetchFunction;
  now(): number;
  generateId(): string;
  readonly sleep: SleepFunction;
  record(event: CallEvent): void;
  route(name: string): RouteConfig;
}

/**
 * Checks the options and resolves what can be resolved once.
 * @throws InvalidOptionsError for missing ids, empty routes, unknown providers or bad numbers.
 */
export function createContext(options: GatewayClientOptions): ClientContext {
  const problems = optionProblems(options);
  const routes = new Map<string, RouteConfig>();
  for (const [name, input] of Object.entries(options.routes ?? {})) {
    const route = normaliseRoute(input);
    if (route.steps.length === 0) problems.push(`route "${name}" has no steps`);
    problems.push(...routeChainProblems(name, route));
    routes.set(name, route);
  }
  if (problems.length > 0) {
    throw new InvalidOptionsError({
      message: `createGatewayClient: ${problems.map((problem) => problem.replace(/\.$/, "")).join("; ")}.`,
    });
  }
  const baseUrl = (options.baseUrl ?? defaultBaseUrl).replace(/\/+$/, "");
  const gatewayUrl = `${baseUrl}/v1/${encodeURIComponent(options.accountId)}/${encodeURIComponent(options.gatewayId)}`;
  const onRecorderError = (error: unknown) => options.onRecorderError?.(error);
  const now = () => (options.now ?? Date.now)();
  const breaker =
    options.breaker === false
      ? undefined
      : new CircuitBreaker(options.breaker ?? {}, now, (transition) => {
          const recorder = options.recorder;
          if (recorder?.breaker) callSafely(() => recorder.breaker?.(transition), onRecorderError);
        });

  return {
    options,
    gatewayId: options.gatewayId,
    gatewayUrl,
    compatUrl: `${gatewayUrl}/compat/chat/completions`,
    routes,
    breaker,
    budgetLedger: options.budgetLedger ?? new BudgetLedger(),
    fetch: (input, init) => (options.fetch ?? globalThis.fetch)(input, init),
    now,
    generateId: () => (options.generateId ?? (() => globalThis.crypto.randomUUID()))(),
    sleep: options.sleep ?? defaultSleep,
    record(event) {
      const recorder = options.recorder;
      if (recorder) callSafely(() => recorder.record(event), onRecorderError);
    },
    route(name) {
      const route = routes.get(name);
      if (route === undefined)
        throw new UnknownRouteError({ route: name, knownRoutes: [...routes.keys()] });
      return route;
    },
  };
}

function normaliseRoute(input: RouteInput): RouteConfig {
  if (Array.isArray(input)) return { steps: [...(input as readonly StepConfig[])] };
  const route = input as RouteConfig;
  return Array.isArray(route?.steps) ? route : { ...route, steps: [] };
}

function optionProblems(options: GatewayClientOptions): string[] {
  const problems: string[] = [];
  if (typeof options.accountId !== "string" || options.accountId.trim() === "") {
    problems.push("accountId is missing; pass your Cloudflare account id (config.accountId)");
  }
  if (typeof options.gatewayId !== "string" || options.gatewayId.trim() === "") {
    problems.push("gatewayId is missing; pass the gateway id, e.g. config.gateways[0].id");
  }
  if (options.baseUrl !== undefined && !/^https?:\/\/[^/]/.test(options.baseUrl)) {
    problems.push(`baseUrl must be an http(s) URL, got "${options.baseUrl}"`);
  }
  const positive: (keyof GatewayClientOptions)[] = [
    "requestTimeoutMs",
    "attemptTimeoutMs",
    "streamIdleTimeoutMs",
    "deadlineMs",
    "maxAttempts",
  ];
  for (const name of positive) {
    const value = options[name];
    if (
      value !== undefined &&
      !(typeof value === "number" && Number.isInteger(value) && value > 0)
    ) {
      problems.push(`${name} must be a positive whole number, got ${String(value)}`);
    }
  }
  for (const name of ["retryDelayMs", "maxRetryDelayMs"] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      problems.push(`${name} must be 0 or more, got ${String(value)}`);
    }
  }
  const breaker = options.breaker;
  if (breaker) {
    const rate = breaker.failureRateThreshold;
    if (rate !== undefined && !(rate > 0 && rate <= 1)) {
      problems.push(`breaker.failureRateThreshold must be above 0 and at most 1, got ${rate}`);
    }
    for (const name of ["failureThreshold", "minimumCalls", "windowMs", "cooldownMs"] as const) {
      const value = breaker[name];
      if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
        problems.push(`breaker.${name} must be a positive whole number, got ${value}`);
      }
    }
  }
  return problems;
}
