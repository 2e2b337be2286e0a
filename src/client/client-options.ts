/**
 * @module
 * What `createGatewayClient` accepts: its options, and the functions it may be given instead of
 * the platform's (`fetch`, a clock, a sleep). Types only; `types.ts` gathers them with the
 * client's other shared types.
 */

import type { ModelPrices, RouteConfig, StepConfig } from "../config/schema.ts";
import type { BudgetLedger } from "../routes/budget-ledger.ts";
import type { Scorer } from "../routes/policy-call.ts";
import type { KeyLookup } from "../routes/universal.ts";
import type { RouteMode, StreamBreakPolicy } from "./chat-types.ts";
import type { Recorder, StepBreaker, StepGuard, StepLimits } from "./client-hooks.ts";

/** A `fetch`-compatible function, as `globalThis.fetch`. */
export type FetchFunction = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** Waits `ms` milliseconds; rejects with the signal's reason when it aborts first. */
export type SleepFunction = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A route as the config holds it, or just its steps. */
export type RouteInput = RouteConfig | readonly StepConfig[];

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
