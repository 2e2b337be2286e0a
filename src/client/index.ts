/**
 * @module
 * The thin client: universal or dynamic-route chat calls through Cloudflare AI Gateway (or the
 * emulator, or the companion Worker), which step served each call, one recorded event per call,
 * a circuit breaker per provider, and typed errors. Run-time dependency free: `fetch` only.
 *
 * @example
 * import { createGatewayClient, memoryRecorder } from "stepwise/client";
 *
 * const client = createGatewayClient({
 *   accountId: "0123456789abcdef0123456789abcdef",
 *   gatewayId: "chat-prod",
 *   gatewayToken: process.env.CF_AIG_TOKEN,
 *   routes: { default: [{ provider: "openai", model: "gpt-4o-mini" }] },
 * });
 * const answer = await client.chat({ route: "default", messages: [{ role: "user", content: "Hi" }] });
 * answer.served; // { index: 0, provider: "openai", model: "gpt-4o-mini", cached: false, ... }
 *
 * @example
 * // Streaming
 * const stream = client.stream({ route: "default", messages });
 * for await (const delta of stream) if (delta.type === "text") process.stdout.write(delta.text);
 * const { served, usage } = await stream.result;
 *
 * @example
 * // The OpenAI SDK, recorded
 * const openai = new OpenAI({ apiKey: "unused", baseURL: client.url("compat"), fetch: client.fetch });
 * await openai.chat.completions.create({ model: "dynamic/default", messages });
 */

export { BudgetLedger } from "../routes/budget-ledger.ts";
export { complexityScorer, complexityTier } from "../routes/complexity.ts";
export type { Scorer } from "../routes/policy-call.ts";
export type {
  BreakerOptions,
  BreakerReason,
  BreakerState,
  BreakerTransition,
  ProviderHealth,
} from "./breaker.ts";
export { createGatewayClient, type GatewayClient } from "./client.ts";
export { defaultBaseUrl } from "./context.ts";
export * from "./errors.ts";
export type { CallEvent, PolicyOutcome } from "./event.ts";
export {
  callbackRecorder,
  type MemoryRecorder,
  memoryRecorder,
  type Recorder,
} from "./recorder.ts";
export type {
  Backoff,
  ChatDelta,
  ChatOptions,
  ChatResponse,
  ChatStream,
  FetchFunction,
  GatewayCallSettings,
  GatewayClientOptions,
  GatewayRetries,
  OutputValidator,
  RouteInput,
  RouteMode,
  ServedInfo,
  SleepFunction,
  ValidationOutcome,
} from "./types.ts";
