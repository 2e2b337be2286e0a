/**
 * @module
 * `createGatewayClient`: the thin client's entry point. Run-time dependency free (only `fetch`
 * and web platform APIs), so it runs in Node, Workers and browsers.
 */

import type { ProviderHealth } from "./breaker.ts";
import { runChat } from "./chat.ts";
import { createClientFetch } from "./client-fetch.ts";
import { createContext } from "./context.ts";
import { startStream } from "./stream.ts";
import type {
  ChatOptions,
  ChatResponse,
  ChatStream,
  FetchFunction,
  GatewayClientOptions,
} from "./types.ts";

/** A client for one AI Gateway. */
export interface GatewayClient {
  /**
   * Sends a chat request over a route and returns the normalised answer with the step that
   * served it. Records exactly one `CallEvent`.
   * @throws a {@link GatewayError} subclass: `AllStepsFailedError`, `AuthenticationError`,
   * `RateLimitedError`, `DeadlineExceededError`, `AbortedError`, `OutputRejectedError`...
   */
  chat(options: ChatOptions): Promise<ChatResponse>;
  /**
   * Streams a chat answer: iterate for deltas, then `await stream.result`. A stream that ends
   * before its end marker fails with `IncompleteStreamError`.
   */
  stream(options: ChatOptions): ChatStream;
  /**
   * A `fetch` for other SDKs: adds the gateway token and an event id to gateway requests and
   * records one event (mode `fetch`) per call with the step the gateway reports.
   */
  readonly fetch: FetchFunction;
  /** The URL of a path under the gateway, e.g. `url("compat")` for the OpenAI SDK's `baseURL`. */
  url(path?: string): string;
  /** Every route provider's circuit: state, failures, failure rate, probe time. */
  health(): Record<string, ProviderHealth>;
}

/**
 * Creates a client for one gateway.
 * @throws InvalidOptionsError when ids are missing, a route is empty, a provider is unknown or a
 * number is out of range.
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
 * });
 * const answer = await client.chat({ route: "default", messages: [{ role: "user", content: "Hi" }] });
 * console.log(answer.text, answer.served.provider, answer.served.index);
 */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const context = createContext(options);
  const providers = () =>
    [...context.routes.values()].flatMap((route) => route.steps.map((step) => step.provider));
  return {
    chat: (chatOptions) => runChat(context, chatOptions),
    stream: (chatOptions) => startStream(context, chatOptions),
    fetch: createClientFetch(context),
    url: (path = "") =>
      path === "" ? context.gatewayUrl : `${context.gatewayUrl}/${path.replace(/^\/+/, "")}`,
    health: () => context.breaker?.health(providers()) ?? closedHealth(providers()),
  };
}

function closedHealth(providers: readonly string[]): Record<string, ProviderHealth> {
  const report: Record<string, ProviderHealth> = {};
  for (const provider of [...new Set(providers)].sort()) {
    report[provider] = {
      provider,
      state: "closed",
      consecutiveFailures: 0,
      failureRate: null,
      windowCalls: 0,
      openedAt: null,
      probeAt: null,
      probeInFlight: false,
    };
  }
  return report;
}
