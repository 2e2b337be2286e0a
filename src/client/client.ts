/**
 * @module
 * `createGatewayClient`: the thin client's entry point. It checks its options once, prepares each
 * route's steps and the headers every call shares, starts loading the routes' provider formats
 * (`on-demand/`), and hands each call to `call.ts` (`client.stream` to `stream.ts`). Run-time
 * dependency free (only `fetch` and web platform APIs), so it runs in Node, Workers and browsers.
 */

import type { RouteConfig, StepConfig } from "../config/schema.ts";
import { isKnownProvider, providerSlugs } from "../providers/catalog.ts";
import type { ProviderAdapter } from "../providers/types.ts";
import { GatewayCall } from "./call.ts";
import { choiceProblem, choices, throwProblems, wholeNumberProblem } from "./call-errors.ts";
import { callSafely } from "./call-event.ts";
import type { ClientState, PreparedRoute, RestTarget } from "./call-state.ts";
import { loadAdapter } from "./on-demand/index.ts";
import { startStream } from "./stream.ts";
import type { ChatOptions, ChatResponse, ChatStream, GatewayClientOptions } from "./types.ts";

/** A client for one gateway. */
export interface GatewayClient {
  /**
   * Sends a chat request over a route and returns the normalised answer with the step that
   * served it. Records exactly one `CallEvent`.
   * @throws a {@link GatewayError} subclass: `AllStepsFailedError`, `AuthenticationError`,
   * `RateLimitedError`, `DeadlineExceededError`, `AbortedError`, `OutputRejectedError`...
   */
  chat(options: ChatOptions): Promise<ChatResponse>;
  /**
   * Streams a chat answer: iterate for deltas, then `await stream.result`. A stream that breaks
   * after text reached the caller goes on with the remaining steps (see `onStreamBreak`).
   */
  stream(options: ChatOptions): ChatStream;
  /** The URL of a path under the gateway, e.g. `url("compat")` for the OpenAI SDK's `baseURL`. */
  url(path?: string): string;
}

/** Cloudflare's AI Gateway origin. */
export const defaultBaseUrl = "https://gateway.ai.cloudflare.com";

/**
 * Creates a client for one gateway.
 * @throws InvalidOptionsError when ids are missing, a route is empty, a provider is unknown or a
 * number is out of range, naming every problem at once.
 * @example
 * const { config } = await loadConfig({ stack: "dev" });
 * const gateway = config.gateways[0];
 * const client = createGatewayClient({
 *   accountId: config.accountId,
 *   gatewayId: gateway.id,
 *   gatewayToken: process.env.CF_AIG_TOKEN,
 *   routes: gateway.routes,
 *   prices: config.models,
 *   recorder: memoryRecorder(),
 *   breaker: createCircuitBreaker(), // from "stepwise-gateway/client/breaker"
 * });
 * const answer = await client.chat({ route: "default", messages: [{ role: "user", content: "Hi" }] });
 * console.log(answer.text, answer.served.provider, answer.served.index);
 */
export function createGatewayClient(
  options: GatewayClientOptions,
  /** @internal `createRestClient`'s target: calls go to the REST API. */
  rest?: RestTarget,
): GatewayClient {
  const problems: string[] = [];
  for (const name of ["accountId", "gatewayId"] as const) {
    if (!String(options[name] ?? "").trim())
      problems.push(`${name} is missing (see config.accountId, config.gateways[0].id)`);
  }
  const { baseUrl = defaultBaseUrl, breaker, recorder } = options;
  if (!/^https?:\/\/[^/]/.test(baseUrl))
    problems.push(`baseUrl must be an http(s) URL, got "${baseUrl}"`);
  // Every timing and count (`…Ms`, `maxAttempts`) is a whole number: retry delays from 0, the rest from 1.
  for (const [name, value] of Object.entries(options)) {
    if (/Ms$|Attempts$/.test(name))
      wholeNumberProblem(problems, name, value, /etryDelay/.test(name) ? 0 : 1);
  }
  choiceProblem(problems, "mode", options.mode, choices.mode);
  choiceProblem(problems, "onStreamBreak", options.onStreamBreak, choices.onStreamBreak);
  const routes = new Map<string, PreparedRoute>();
  const adapters = new Map<string, ProviderAdapter>();
  for (const [name, input] of Object.entries(options.routes ?? {})) {
    const route: Partial<RouteConfig> = Array.isArray(input)
      ? { steps: input }
      : (input as RouteConfig);
    // Every step's provider known (a hand-written policy route's chains too), its format loading.
    const checkStep = (where: string) => (step: StepConfig, index: number) => {
      if (!isKnownProvider(step.provider)) {
        problems.push(
          `${where} step ${index}: unknown provider "${step.provider}" (known: ${providerSlugs.join(", ")}, custom-<slug>)`,
        );
      } else if (!adapters.has(step.provider)) {
        // Start loading the provider's format now, so the first call need not wait for it.
        loadAdapter(adapters, step.provider).catch(() => undefined);
      }
      return { ...step, index };
    };
    const steps = (route?.steps ?? []).map(checkStep(`route "${name}"`));
    if (steps.length === 0) problems.push(`route "${name}" has no steps`);
    const chains = route.chains ?? {};
    for (const chain in chains)
      chains[chain]!.forEach(checkStep(`route "${name}" chain "${chain}"`));
    // Every chain a policy's rules use is declared.
    for (const rule of route.policy ?? []) {
      for (const used of [rule.use, rule.budget?.over, ...Object.keys(rule.split ?? {})]) {
        if (used && used !== "default" && !(used in chains))
          problems.push(
            `route "${name}": its policy names chain "${used}", which it does not declare; add it under chains`,
          );
      }
    }
    wholeNumberProblem(problems, `route "${name}" deadlineMs`, route.deadlineMs, 1);
    choiceProblem(
      problems,
      `route "${name}" onStreamBreak`,
      route.onStreamBreak,
      choices.onStreamBreak,
    );
    routes.set(name, {
      name,
      steps,
      deadlineMs: route.deadlineMs,
      onStreamBreak: route.onStreamBreak,
      metadata: JSON.stringify({ route: name }),
      config: route as RouteConfig,
    });
  }
  throwProblems("createGatewayClient", problems);
  const headers: Record<string, string> = {
    ...options.headers,
    "content-type": "application/json",
  };
  if (options.gatewayToken !== undefined)
    headers["cf-aig-authorization"] = `Bearer ${options.gatewayToken}`;
  if (options.requestTimeoutMs !== undefined)
    headers["cf-aig-request-timeout"] = String(options.requestTimeoutMs);
  const state: ClientState = {
    options,
    gatewayUrl: gatewayUrlOf(options),
    routes,
    headers,
    adapters,
    rest,
  };
  if (breaker?.subscribe && recorder?.breaker) {
    breaker.subscribe((transition) =>
      callSafely(() => recorder.breaker?.(transition), options.onRecorderError),
    );
  }
  return {
    chat: (call) => new GatewayCall(state, call).run(),
    stream: (call) => startStream(state, call),
    url: (path = "") => state.gatewayUrl + (path && `/${path.replace(/^\/+/, "")}`),
  };
}

/** `${baseUrl}/v1/${accountId}/${gatewayId}`: the gateway's universal endpoint. */
export function gatewayUrlOf(options: GatewayClientOptions): string {
  const baseUrl = (options.baseUrl ?? defaultBaseUrl).replace(/\/+$/, "");
  return `${baseUrl}/v1/${encodeURIComponent(options.accountId)}/${encodeURIComponent(options.gatewayId)}`;
}
