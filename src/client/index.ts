/**
 * @module
 * The thin client: universal or dynamic-route chat calls through Cloudflare AI Gateway (or the
 * emulator, or the companion Worker), which step served each call, one recorded event per call,
 * failover that carries on mid-stream, and typed errors. Run-time dependency free: `fetch` only.
 *
 * Separate entries keep what a call does not need out of an app's bundle: the circuit breaker
 * (`stepwise-gateway/client/breaker`), provider limits (`stepwise-gateway/client/limits`), health steering from the
 * companion Worker's `GET /health` (`stepwise-gateway/client/health`), a `BudgetLedger` that clients
 * share (`stepwise-gateway/client/budget`), the recorded `fetch` for other SDKs (`stepwise-gateway/client/fetch`),
 * the whole error tree (`stepwise-gateway/client/errors`; this entry exports `GatewayError`,
 * `InvalidOptionsError`, `DeadlineExceededError` and `AbortedError`) and the JSON-lines file
 * recorder (`stepwise-gateway/client/node`). `memoryRecorder` and `callbackRecorder` are left out of a
 * bundle that does not use them. Within the client, the stream reader and each provider's format
 * load on first use (`on-demand/`).
 *
 * @example
 * import { createGatewayClient } from "stepwise-gateway/client";
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
 * // Streaming: a `restart` delta says how much of the text shown to drop when a step broke.
 * const stream = client.stream({ route: "default", messages });
 * for await (const delta of stream) {
 *   if (delta.type === "restart") shown = shown.slice(0, shown.length - delta.discardedChars);
 *   if (delta.type === "text") shown += delta.text;
 * }
 * const { served, usage } = await stream.result;
 */

// A type only: a value export would keep the class in the core; `stepwise-gateway/client/budget` has it.
export type { BudgetLedger } from "../routes/budget-ledger.ts";
export { complexityScorer, complexityTier } from "../routes/complexity.ts";
export type { Scorer } from "../routes/policy-call.ts";
export * from "./call-errors.ts";
export { createGatewayClient, defaultBaseUrl, type GatewayClient } from "./client.ts";
export type {
  CallEvent,
  FailedStep,
  HedgeRecord,
  PolicyOutcome,
  SteeredStepRecord,
} from "./event.ts";
export { callbackRecorder, type MemoryRecorder, memoryRecorder } from "./recorder.ts";
export type {
  Backoff,
  BreakerTransition,
  ChatDelta,
  ChatOptions,
  ChatResponse,
  ChatStream,
  FetchFunction,
  GatewayCallSettings,
  GatewayClientOptions,
  GatewayRetries,
  OutputValidator,
  Recorder,
  RestartDelta,
  RouteInput,
  RouteMode,
  RouteStep,
  ServedInfo,
  SleepFunction,
  SteeredStep,
  SteeringNotes,
  StepBreaker,
  StepGuard,
  StepLimits,
  StreamBreakPolicy,
  ValidationOutcome,
} from "./types.ts";
