/**
 * @module
 * The client's shared types, in one module that imports no other of the client's but the event's
 * shape: what `createGatewayClient`, `client.chat` and `client.stream` accept and return, the
 * hooks that order an attempt's steps (the circuit breaker, provider limits, health steering),
 * and where a client sends what it observed (a {@link Recorder}: call events and the breaker's
 * transitions). What a running call keeps is in `call-state.ts`.
 */

import type { ModelPrices, RouteConfig, StepConfig } from "../config/schema.ts";
import type { ChatMessage, FinishReason, StreamDelta, TokenUsage } from "../providers/types.ts";
import type { BudgetLedger } from "../routes/budget-ledger.ts";
import type { Scorer } from "../routes/policy-call.ts";
import type { KeyLookup } from "../routes/universal.ts";
import type { CallEvent } from "./event.ts";

/** A `fetch`-compatible function, as `globalThis.fetch`. */
export type FetchFunction = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** Waits `ms` milliseconds; rejects with the signal's reason when it aborts first. */
export type SleepFunction = (ms: number, signal?: AbortSignal) => Promise<void>;

/** How the gateway learns the route: the client sends the chain, or the gateway holds it. */
export type RouteMode = "universal" | "dynamic";

/** A route as the config holds it, or just its steps. */
export type RouteInput = RouteConfig | readonly StepConfig[];

/** Backoff between retries: constant `d`, linear `d·n`, exponential `d·2^(n-1)`. */
export type Backoff = "constant" | "linear" | "exponential";

/**
 * What `client.stream` does when a stream breaks, stalls or sends an error after text reached the
 * caller: `restart` (default) goes on with the remaining steps and sends a `restart` delta first,
 * so the caller can drop what it showed; `continue` asks the next step to continue the text shown
 * (an assistant prefill, on providers that accept one; others restart); `fail` ends the call.
 */
export type StreamBreakPolicy = "restart" | "continue" | "fail";

/** A step of a route as the client sees it: provider, model and the timeouts it honours. */
export interface RouteStep {
  readonly provider: string;
  readonly model: string;
  /** Time to first byte before the gateway moves on (`config.requestTimeout`), in ms. */
  readonly timeoutMs?: number;
  /** Longest wait for a stream's first text, enforced by the client, in ms. */
  readonly firstTokenTimeoutMs?: number;
  /** Longest silence between a stream's events once text flows, enforced by the client, in ms. */
  readonly idleTimeoutMs?: number;
}

/** Settings for `createGatewayClient`. Only `accountId` and `gatewayId` are required. */
export interface GatewayClientOptions {
  /** Your 32-character Cloudflare account id. */
  readonly accountId: string;
  /** The AI Gateway id, e.g. `chat-prod`. */
  readonly gatewayId: string;
  /**
   * Gateway origin. Default `https://gateway.ai.cloudflare.com`; the emulator's or the
   * companion Worker's URL work the same way. URLs are `${baseUrl}/v1/${accountId}/${gatewayId}`.
   */
  readonly baseUrl?: string;
  /**
   * Origin of the REST API (`createRestClient`, and `createGatewayFetch` for SDKs whose `baseURL`
   * is `…/ai/v1`). Default: `baseUrl` when it is not Cloudflare's gateway origin (the emulator
   * serves both), else `https://api.cloudflare.com`.
   */
  readonly apiBaseUrl?: string;
  /** Sent as `cf-aig-authorization: Bearer <token>`; needed for authenticated gateways. */
  readonly gatewayToken?: string;
  /** Routes by name, e.g. `config.gateways[0].routes`, or inline. */
  readonly routes?: Readonly<Record<string, RouteInput>>;
  /** Prices per million tokens keyed `provider/model` (`config.models`), for `cost`. */
  readonly prices?: ModelPrices;
  /** Provider → key. Leave out when the gateway (BYOK) or the companion Worker holds keys. */
  readonly keyLookup?: KeyLookup;
  /** Default `universal`. */
  readonly mode?: RouteMode;
  /** Default: `globalThis.fetch`, looked up at call time. */
  readonly fetch?: FetchFunction;
  /** Clock in epoch ms. Default: `Date.now`, looked up at call time. */
  readonly now?: () => number;
  /** Event ids. Default: `crypto.randomUUID()`. */
  readonly generateId?: () => string;
  /** Waits between client-level retries. Default: a `setTimeout` that the signal cancels. */
  readonly sleep?: SleepFunction;
  /** Receives one `CallEvent` per call and the breaker's transitions. */
  readonly recorder?: Recorder;
  /** Told when the recorder throws (the call itself never fails because of it). */
  readonly onRecorderError?: (error: unknown) => void;
  /** Default `cf-aig-request-timeout` (ms to first byte, per step) for every call. */
  readonly requestTimeoutMs?: number;
  /** Client-side limit for one attempt, in ms. Default: none (only the deadline applies). */
  readonly attemptTimeoutMs?: number;
  /**
   * Longest a stream may stay silent between events once text flows, in ms, when its step sets
   * no `idleTimeoutMs`. Default 5 000.
   */
  readonly streamIdleTimeoutMs?: number;
  /**
   * Longest wait from a stream's headers to its first text, in ms, when its step sets no
   * `firstTokenTimeoutMs`. Default 30 000.
   */
  readonly firstTokenTimeoutMs?: number;
  /** What a stream does when it breaks after text reached the caller. Default `restart`. */
  readonly onStreamBreak?: StreamBreakPolicy;
  /** Overall deadline per call, in ms, when neither the call nor the route sets one. Default 120 000. */
  readonly deadlineMs?: number;
  /** Most HTTP attempts per call, validation retries included. Default 3. */
  readonly maxAttempts?: number;
  /** Base wait between client-level retries, in ms. Default 250; doubles, capped at 5 000. */
  readonly retryDelayMs?: number;
  /** Longest wait between client-level retries, in ms. Default 5 000. */
  readonly maxRetryDelayMs?: number;
  /**
   * A circuit breaker per provider and model (`createCircuitBreaker()` from
   * `stepwise-gateway/client/breaker`). Default: none, every call sends the route in its order.
   */
  readonly breaker?: StepBreaker;
  /**
   * Provider quota tracking (`createProviderLimits()` from `stepwise-gateway/client/limits`): steps at
   * their published or configured cap are skipped. Default: none.
   */
  readonly limits?: StepLimits;
  /**
   * The companion Worker's `GET /health` (`createHealthSteering()` from `stepwise-gateway/client/health`):
   * degraded and down steps are demoted. Default: none.
   */
  readonly health?: StepGuard;
  /** Extra headers on every gateway request (never recorded). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Metadata computed from each call's request and sent in `cf-aig-metadata`, under the call's
   * own `metadata` (which wins on the same key); a route's policy reads both. `complexityScorer`
   * (a heuristic) adds `tier`. Default: none.
   */
  readonly scorer?: Scorer;
  /**
   * What the budgets of routes' policies have spent, for universal calls (counted in this
   * process only; docs/routing-policy.md). Default: one ledger per client; pass one to share it.
   */
  readonly budgetLedger?: BudgetLedger;
  /** A draw in [0, 1) for a policy's percentage split. Default `Math.random`, at call time. */
  readonly random?: () => number;
}

/** Gateway-side retries of each step (`cf-aig-max-attempts`, `-retry-delay`, `-backoff`). */
export interface GatewayRetries {
  /** 1–5. */
  readonly maxAttempts?: number;
  /** ms, at most 5 000. */
  readonly delayMs?: number;
  readonly backoff?: Backoff;
}

/** Per-call gateway settings that become `cf-aig-*` headers. */
export interface GatewayCallSettings {
  /** `cf-aig-cache-ttl` in seconds: 0 turns caching off, else 60 to 2 592 000. */
  readonly cacheTtl?: number;
  /** `cf-aig-skip-cache: true` bypasses the cache lookup. */
  readonly skipCache?: boolean;
  /** `cf-aig-cache-key`: your own cache key. */
  readonly cacheKey?: string;
  /** `cf-aig-metadata`: at most 5 entries of string, number or boolean. */
  readonly metadata?: Readonly<Record<string, string | number | boolean>>;
  /** `cf-aig-event-id`; also the recorded event's `id`. Default: a generated id. */
  readonly eventId?: string;
  /** `cf-aig-request-timeout`: ms to first byte before the gateway moves to the next step. */
  readonly requestTimeoutMs?: number;
  /** Gateway-side retries within each step. */
  readonly retries?: GatewayRetries;
  /** `cf-aig-collect-log`: override the gateway's log setting for this call. */
  readonly collectLog?: boolean;
}

/** What `validate` returns: true accepts; false or a reason rejects the answer. */
export type ValidationOutcome = boolean | string;

/** Checks an answer; a rejection makes the client try the steps after the one that served. */
export type OutputValidator = (
  result: ChatResponse,
) => ValidationOutcome | Promise<ValidationOutcome>;

/** Options for `client.chat` and `client.stream`. */
export interface ChatOptions extends GatewayCallSettings {
  /** Route name, a key of the client's `routes`. */
  readonly route: string;
  readonly messages: readonly ChatMessage[];
  /** Overrides the client's mode for this call. */
  readonly mode?: RouteMode;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stop?: readonly string[];
  /** Cancels the call: in-flight requests, streams and waits. */
  readonly signal?: AbortSignal;
  /** Overall deadline in ms; beats the route's `deadlineMs` and the client's. */
  readonly deadlineMs?: number;
  /** Most HTTP attempts for this call; beats the client's `maxAttempts`. */
  readonly maxAttempts?: number;
  /** Checks each answer. See {@link OutputValidator}. */
  readonly validate?: OutputValidator;
  /** What a stream does when it breaks after text reached the caller; beats the route's. */
  readonly onStreamBreak?: StreamBreakPolicy;
}

/** Which step served a call, and how. */
export interface ServedInfo {
  /** 0-based index of the step in the route; null only if a dynamic route's answer named none. */
  readonly index: number | null;
  /** The serving step's provider slug (null with `index`). */
  readonly provider: string | null;
  /** The serving step's model as the route names it (null with `index`). */
  readonly model: string | null;
  /** The model the provider says answered, e.g. a dated snapshot. */
  readonly responseModel: string;
  /** True when the gateway answered from its cache (`cf-aig-cache-status: HIT`). */
  readonly cached: boolean;
  /** `cf-aig-log-id`, to find the call in the gateway's logs. */
  readonly logId: string | null;
  /** HTTP attempts the client made for this call. */
  readonly attempts: number;
  /** Wall time of the whole call, in ms. */
  readonly latencyMs: number;
}

/** A normalised answer and the step that served it. */
export interface ChatResponse {
  /** The call's id: the recorded event's `id` and the `cf-aig-event-id` sent. */
  readonly id: string;
  readonly text: string;
  readonly usage: TokenUsage;
  /** USD from the price table; 0 for cache hits; null when the model has no price. */
  readonly cost: number | null;
  readonly finishReason: FinishReason;
  readonly served: ServedInfo;
}

/**
 * Sent before the text of a new answer when the step that was streaming broke, stalled or sent an
 * error after text reached the caller: drop the last `discardedChars` characters shown (all of
 * them on a restart; none, or only trailing whitespace, when the next step continues the text).
 */
export interface RestartDelta {
  readonly type: "restart";
  /** The route step whose stream broke. */
  readonly step: number;
  /** The error code of the break, e.g. `incomplete_stream`, `timeout`, `api_call_error`. */
  readonly reason: string;
  readonly discardedChars: number;
}

/** What a stream yields: text as it arrives, usage and the finish reason, and restarts. */
export type ChatDelta = Extract<StreamDelta, { type: "text" | "usage" | "finish" }> | RestartDelta;

/**
 * A streamed answer: iterate it for deltas, then read `result`.
 * @example
 * const stream = client.stream({ route: "default", messages });
 * for await (const delta of stream) if (delta.type === "text") process.stdout.write(delta.text);
 * const { served, usage } = await stream.result;
 */
export interface ChatStream extends AsyncIterable<ChatDelta> {
  /**
   * Settles when the stream has been read to its end (by iterating or by `collect()`): the full
   * answer (after any restart: the answer the caller was left with), or the error that ended the
   * stream.
   */
  readonly result: Promise<ChatResponse>;
  /** Reads the stream to its end without iterating; the same promise as `result`. */
  collect(): Promise<ChatResponse>;
  /** Stops the stream; `result` rejects with `AbortedError`. */
  cancel(): void;
}

/**
 * The client's view of a circuit breaker; `createCircuitBreaker` from `stepwise-gateway/client/breaker`
 * makes one. A call asks it to order each attempt's steps and tells it what each step did.
 */
export interface StepBreaker {
  /**
   * The steps one attempt sends, in order. The breaker may move or drop steps whose circuit is
   * open, and claim probes for this call in `probes` (circuit key → token).
   */
  order<Step extends RouteStep>(
    steps: readonly Step[],
    probes: Map<string, number>,
  ): readonly Step[];
  /** Counts one outcome of a step: it answered (`true`) or failed (`false`). */
  record(step: RouteStep, ok: boolean, probes: Map<string, number>): void;
  /** Frees the probes a call holds but did not use. */
  release(probes: Map<string, number>): void;
  /** Calls `listener` with every change of a circuit's state (the client passes its recorder's). */
  subscribe?(listener: (transition: BreakerTransition) => void): unknown;
}

/** A step a guard left out of an attempt (`skipped`) or moved behind others (`demoted`), and why. */
export interface SteeredStep {
  /** 0-based index of the step in the route. */
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly action: "skipped" | "demoted";
  /** e.g. `requests_at_cap`, `rpm_cap`, `retry_after`, `down`, `degraded`, `probation`. */
  readonly reason: string;
}

/** Where a guard notes the steps it skipped or demoted (the call; its event lists them). */
export interface SteeringNotes {
  /** The call's mode: guards leave a `dynamic` call's steps alone (the gateway runs its chain). */
  readonly mode: string;
  steered?: SteeredStep[];
}

/**
 * Orders the steps of each universal attempt before it is sent, after the breaker (health, then
 * limits):
 * `createProviderLimits` (`stepwise-gateway/client/limits`) skips steps at their quota,
 * `createHealthSteering` (`stepwise-gateway/client/health`) demotes unhealthy ones.
 */
export interface StepGuard {
  /**
   * The steps to send, in order; each step left out or moved back is added to `notes.steered`. May
   * throw a `GatewayError` when no step can be sent (the call ends with it, without a request).
   */
  order<Step extends RouteStep & { readonly index: number }>(
    steps: readonly Step[],
    notes: SteeringNotes,
  ): readonly Step[];
}

/**
 * The client's provider limits (`createProviderLimits()` from `stepwise-gateway/client/limits`): a
 * {@link StepGuard} told of every answer whose step the client knows.
 */
export interface StepLimits extends StepGuard {
  /**
   * Reads what `response` (an answer or error answer of `step`, headers arrived, body unread)
   * says of the provider's quota; `step` is undefined when the answer named no step of the
   * route. It must not read `response`'s body (it may read a clone).
   */
  observe(step: RouteStep | undefined, response: Response): void;
}

/** A circuit's state. */
export type BreakerState = "closed" | "open" | "half-open";

/** Why a circuit changed state. */
export type BreakerReason =
  | "consecutive_failures"
  | "failure_rate"
  | "cooldown_elapsed"
  | "probe_succeeded"
  | "probe_failed";

/** One change of a circuit's state, as given to subscribers (and `recorder.breaker`). */
export interface BreakerTransition {
  /** ISO-8601 time of the change. */
  readonly time: string;
  readonly provider: string;
  readonly model: string;
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly reason: BreakerReason;
  readonly consecutiveFailures: number;
  /** Failure rate over the window when the change happened; null with too few outcomes. */
  readonly failureRate: number | null;
  /** The cooldown of the circuit after the change, in ms. */
  readonly cooldownMs: number;
}

/**
 * Where the client sends what it observed. A recorder that throws (or rejects) never breaks the
 * call: the client catches it and tells `onRecorderError`.
 * @example
 * const recorder: Recorder = { record: (event) => queue.push(event) };
 */
export interface Recorder {
  /** Called once per call, after it finished (or failed). */
  record(event: CallEvent): void | Promise<void>;
  /** Called when a circuit of the client's breaker changes state. */
  breaker?(transition: BreakerTransition): void | Promise<void>;
}
