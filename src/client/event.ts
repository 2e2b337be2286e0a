/**
 * @module
 * The call event: one JSON object per gateway call, written by the client (and, in reduced form,
 * by the companion Worker) and read by the analytics. It never carries a key or a token.
 */

/** One gateway call, success or failure. Times are epoch milliseconds; `time` is ISO-8601. */
export interface CallEvent {
  /** ISO-8601 time the call started. */
  time: string;
  /** Unique id of this event (the client's call id). */
  id: string;
  gateway: string;
  route: string;
  /**
   * `universal` (the client sent the chain), `dynamic` (compat endpoint, `dynamic/<route>`),
   * `rest` (the REST API's `/ai/v1/…`, `createRestClient`) or `fetch` (a call through
   * `createGatewayFetch`, e.g. by the OpenAI SDK).
   */
  mode: "universal" | "dynamic" | "rest" | "fetch";
  /**
   * The endpoint that carried a `fetch` call, which `mode` does not say: `universal`, `compat`
   * (`…/compat/…`), `provider` (a provider-native path) or `rest` (the REST API's `/ai/…`).
   * Absent for the other modes, where it follows from `mode` (`stepwise report --by endpoint`).
   */
  endpoint?: CallEndpoint;
  /** 0-based index of the route step that served; null when no step served. */
  step: number | null;
  /** Provider and model that served (or the last one tried when the call failed). */
  provider: string | null;
  model: string | null;
  /** HTTP status of the final response; 0 for network errors, aborts and timeouts. */
  status: number;
  ok: boolean;
  /** `HIT`, `MISS`, or null when the gateway did not say. */
  cacheStatus: "HIT" | "MISS" | null;
  /** Wall time of the whole call, in ms. */
  latencyMs: number;
  tokensIn: number | null;
  tokensOut: number | null;
  /** USD of the answer kept, from the price table; null when the model has no price. */
  cost: number | null;
  /**
   * USD that the call's other attempts cost beside the answer kept (a stream cut or stalled
   * after tokens were billed, an answer the validator rejected); absent when nothing is known of
   * it. Never part of `cost`. The client prices what it saw: a rejected answer (received whole,
   * so the same as the gateway's logs), and the usage a broken stream reported before it broke
   * (a lower bound: a stream cut before its usage says nothing). The gateway's logs and the
   * Worker's points price every record the gateway billed.
   */
  failedAttemptsCost?: number;
  /** Stable error code when `ok` is false, e.g. `all_steps_failed`, `timeout`. */
  errorCode: string | null;
  /** `cf-aig-log-id` of the response, when the gateway sent one. */
  logId: string | null;
  /** Attempts the client made for this call (output-validation retries included). */
  attempts: number;
  /** True when the response streamed. */
  streamed: boolean;
  /**
   * Route steps (0-based) whose answers the caller's validator rejected, in order; absent when
   * none was. A call that recovered on a later step has `ok: true` and this list; a call whose
   * every answer was rejected has `errorCode: "output_rejected"`.
   */
  rejectedSteps?: number[];
  /**
   * The `cf-aig-metadata` entries the call sent besides `route` (the event has it): the call's own
   * and its scorer's; absent when there were none. `stepwise report --by metadata.<key>` groups by
   * them.
   */
  metadata?: Record<string, string | number | boolean>;
  /**
   * What the route's policy decided for a universal call; absent for a route without a policy
   * and for a dynamic call (the gateway decides there). `step` then counts within the chain.
   */
  policy?: PolicyOutcome;
  /**
   * Steps that failed on the way to the answer (or to the failure), in the order tried, with where
   * each broke; absent when the first step tried answered. A step the gateway passed over without
   * a detail has `status` and `errorCode` null.
   */
  failedSteps?: FailedStep[];
  /**
   * Characters of streamed text the caller was told to discard (`restart` deltas) because the step
   * that sent them broke mid-stream; absent when none was.
   */
  discardedChars?: number;
  /**
   * Steps left out of an attempt because they were at their provider's quota or a configured cap
   * (`limits`), with why (`requests_at_cap`, `tokens_at_cap`, `retry_after`, `rpm_cap`,
   * `tpm_cap`); once per step and reason. Empty when the client has limits and skipped none;
   * absent when it has none (or the call was dynamic: the gateway runs its chain), so a report
   * can tell "none skipped" from "not recorded".
   */
  skippedSteps?: SteeredStepRecord[];
  /**
   * Steps moved behind others because the Worker's `GET /health` said they were `down` or
   * `degraded`, or because they are in `probation` after a recovery (`health`). Empty when the
   * client has health steering and demoted none; absent when it has none (or the call was dynamic).
   */
  demotedSteps?: SteeredStepRecord[];
  /**
   * The hedges of the call's attempts, in order. Empty on a route with `hedge` when none was due;
   * absent on a route without (or for a dynamic call).
   */
  hedges?: HedgeRecord[];
}

/** The endpoints a call can go through, old generation (universal, compat) and new (rest). */
export type CallEndpoint = "universal" | "compat" | "provider" | "rest";

/** A step skipped or demoted before an attempt, as `skippedSteps` and `demotedSteps` list it. */
export interface SteeredStepRecord {
  step: number;
  provider: string;
  model: string;
  reason: string;
}

/** One hedge: the request sent to the steps after the first when no answer had started. */
export interface HedgeRecord {
  /** The route step the hedged request started with. */
  step: number;
  provider: string;
  model: string;
  /** ms after the attempt's first request when the hedge was due. */
  afterMs: number;
  /** False when the route's cost cap, or a missing price, kept it from being sent. */
  sent: boolean;
  /** Why it was not sent: `cost_cap` or `unpriced`. */
  reason?: "cost_cap" | "unpriced";
  /** Whose answer the attempt kept: the first request's, the hedge's, or none (both failed). */
  kept: "primary" | "hedge" | "none";
  /** Estimated USD of the answer dropped (its prompt at its first step's input price); 0 if unsent. */
  extraCost: number;
}

/** A routing policy's decision for one call, as `CallEvent.policy` records it. */
export interface PolicyOutcome {
  /** The chain the call took (`default` for the route's steps). */
  chain: string;
  /** The rule that chose it (0-based); null when no rule matched. */
  rule: number | null;
  /**
   * That rule's budget: `within` it, or `over` it (the call took the budget's `over` chain);
   * absent when the rule has no budget.
   */
  budget?: "within" | "over";
}

/** One step that failed during a call, as `CallEvent.failedSteps` lists it. */
export interface FailedStep {
  /** 0-based index of the step in the route. */
  step: number;
  provider: string;
  model: string;
  /** HTTP status of the step's answer; null when there was none or the gateway gave no detail. */
  status: number | null;
  /** The step's error code (`incomplete_stream`, `timeout`, `api_call_error`…), or null. */
  errorCode: string | null;
  /**
   * Where it broke: `request` (an error answer or none), `stream` (a 2xx stream that broke before
   * any text reached the caller), `mid-stream` (after text reached the caller) or `answer` (a
   * complete answer that could not be read or that the validator rejected).
   */
  at: "request" | "stream" | "mid-stream" | "answer";
}
