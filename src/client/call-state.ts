/**
 * @module
 * What a client and each of its calls keep while they work, shared by the parts of a call: the
 * client's prepared routes ({@link ClientState}), one call's state ({@link CallState}, made by
 * `call.ts` and read and written by `attempt.ts`, `failover.ts`, the hedge and the policy), a
 * failed attempt ({@link Failure}) and a step's failure ({@link Trial}), and what a streamed
 * call adds ({@link Streamer}, made by the stream reader). Types only: the parts of a call share
 * data, never call back into the module that called them.
 */

import type { RouteConfig, StepConfig } from "../config/schema.ts";
import type { ChatRequest, FinishReason, ProviderAdapter, TokenUsage } from "../providers/types.ts";
import type { BudgetLedger } from "../routes/budget-ledger.ts";
import type { PolicyDecision } from "../routes/policy.ts";
import type { GatewayError } from "./call-errors.ts";
import type { FailedStep, HedgeRecord } from "./event.ts";
import type { OutputRejection } from "./route-errors.ts";
import type { ChatOptions, GatewayClientOptions, SteeredStep, StreamBreakPolicy } from "./types.ts";

/** A route step as a call uses it: the configured step and its index in the route. */
export interface RouteEntry extends StepConfig {
  readonly index: number;
}

/** A route, checked and prepared once. */
export interface PreparedRoute {
  readonly name: string;
  readonly steps: readonly RouteEntry[];
  readonly deadlineMs: number | undefined;
  readonly onStreamBreak: StreamBreakPolicy | undefined;
  /** The `cf-aig-metadata` header every call of the route sends (see `settings.ts`). */
  readonly metadata: string;
  /** The route as configured: its chains, policy and hedge. */
  readonly config: RouteConfig;
}

/** What every call of one client shares (made by `createGatewayClient`). */
export interface ClientState {
  readonly options: GatewayClientOptions;
  /** `${baseUrl}/v1/${accountId}/${gatewayId}`: the universal endpoint and every path's prefix. */
  readonly gatewayUrl: string;
  readonly routes: ReadonlyMap<string, PreparedRoute>;
  /** Headers every call sends (JSON body, token, the client's extra headers and timeout). */
  readonly headers: Readonly<Record<string, string>>;
  /** Provider adapters by slug (and `compat`), each loaded with its format's code on first use. */
  readonly adapters: Map<string, ProviderAdapter>;
  /** What the routes' policy budgets spent (made by `call-policy.ts` with the first policy call). */
  budgetLedger?: BudgetLedger;
  /** Where calls go on the REST API (`createRestClient`); unset for the gateway's own endpoints. */
  readonly rest?: RestTarget;
}

/**
 * A client on Cloudflare's REST API (`stepwise-gateway/client/rest`): one model a request, a
 * route's dynamic route (`dynamic/<route>`) or a single step's `author/model`, in one format.
 */
export interface RestTarget {
  /** `.../client/v4/accounts/{account}/ai/v1/chat/completions` or `.../ai/v1/messages`. */
  readonly url: string;
  /** The adapter that writes the request and reads the answer: `compat` (OpenAI's) or `anthropic`. */
  readonly adapter: "compat" | "anthropic";
  /** The REST model name of one step: `openai/gpt-4o-mini`, `google/…`, `@cf/…`. */
  readonly modelOf: (step: StepConfig) => string;
}

/** A complete answer, as a {@link Streamer} read it. */
export interface StreamAnswer {
  readonly text: string;
  readonly usage: TokenUsage;
  readonly finish: FinishReason;
}

/** A stream that broke: the error, whether text reached the caller, the usage it reported. */
export interface BrokenStream {
  readonly error: GatewayError;
  readonly midStream: boolean;
  /** The usage the stream reported before it broke (zeros when it reported none). */
  readonly usage: TokenUsage;
}

/**
 * What a streamed call adds to a chat call: the requests that continue a broken answer, reading
 * 2xx streams into deltas for the caller, and the text the caller was shown. Made by
 * `on-demand/stream-reader.ts`, loaded with the first stream.
 */
export interface Streamer {
  /** Characters the caller was told to discard so far. */
  readonly discarded: number;
  /**
   * The request `entry` gets in the next attempt: with the text shown as an assistant prefill
   * when `continuing` a broken answer on a provider that accepts one, else `request` itself.
   */
  request(
    entry: RouteEntry,
    adapter: ProviderAdapter,
    request: ChatRequest,
    continuing: boolean,
  ): ChatRequest;
  /**
   * An attempt whose first step is `first` is being sent: its first-token clock starts now.
   * Returns how long that step may take to its first text, in ms (headers included).
   */
  sent(first: RouteEntry | undefined): number;
  /** True when `entry` was sent a prefill in the current attempt. */
  prefilled(entry: RouteEntry): boolean;
  /** `entry`'s model refused a prefill: it gets none from now on. */
  refusePrefill(entry: RouteEntry): void;
  /** Reads a 2xx stream: the answer, or the error that broke it and whether text reached the caller. */
  read(
    response: Response,
    adapter: ProviderAdapter,
    entry: RouteEntry | undefined,
    url: string,
  ): Promise<StreamAnswer | BrokenStream>;
  /** The answer shown broke at `step` for `reason`: the next answer starts with a restart. */
  broke(step: number, reason: string): void;
  /** Stops the read in progress (the call stopped). */
  cancel(): void;
}

/** One step's failure, for the event and for `AllStepsFailedError`. */
export interface Trial {
  readonly entry: RouteEntry;
  readonly status: number | null;
  readonly error: GatewayError | null;
  readonly at: FailedStep["at"];
}

/**
 * An attempt that did not end the call with an answer, as `failover.ts` reads it. `entry` is the
 * step to blame, when one is.
 */
export type Failure = {
  readonly entry?: RouteEntry | undefined;
  readonly url: string;
  readonly status: number;
  /**
   * USD the attempt's dropped answer cost (a rejected answer, a broken stream's reported usage);
   * null or unset when nothing is known of it.
   */
  readonly cost?: number | null;
} & (
  | {
      readonly kind: "transport";
      readonly cause: unknown;
      /** Set when a stream's first-token timeout (this long) ran out before its headers. */
      readonly firstTokenMs?: number;
    }
  | { readonly kind: "status"; readonly response: Response; readonly text: string }
  | {
      readonly kind: "unknown-step";
      readonly named: Readonly<Record<string, string | null>>;
      readonly sent: number;
    }
  | { readonly kind: "unreadable"; readonly detail: string; readonly cause: unknown }
  | { readonly kind: "broken"; readonly error: GatewayError; readonly midStream: boolean }
  | { readonly kind: "rejected"; readonly detail: string; readonly midStream: boolean }
);

/** One call while it runs: what it was asked, what it has learned, and how it stops. */
export interface CallState {
  readonly client: GatewayClientOptions;
  readonly state: ClientState;
  readonly options: ChatOptions;
  /**
   * The route the call works with (a policy may swap in the chain it picked). Unset only for a
   * call to an unknown route, which ends before any attempt: only its event sees such a call.
   */
  route: PreparedRoute;
  readonly adapters: Map<string, ProviderAdapter>;
  readonly streamer: Streamer | undefined;
  /** The call's `onStreamBreak`. */
  readonly policy: StreamBreakPolicy;
  readonly maxAttempts: number;
  readonly deadlineMs: number;
  readonly id: string;
  readonly startedAt: number;
  readonly mode: string;
  /** The client's clock (`options.now`, else `Date.now`, looked up at each reading). */
  readonly now: () => number;
  /** Circuit probes this call holds (only with a breaker). */
  readonly probes: Map<string, number> | undefined;
  /** What each attempt sends: the request for the steps' formats, and the gateway headers. */
  readonly request: ChatRequest;
  readonly headers: Readonly<Record<string, string>>;
  /** HTTP attempts so far (a sent hedge counts as one). */
  attempts: number;
  /** Backoff waits so far. */
  waits: number;
  readonly trials: Trial[];
  readonly rejections: OutputRejection[];
  /**
   * Steps not to try again in this call: they refused the request, or their answer was rejected
   * (made with the first one).
   */
  excluded?: Set<number>;
  /**
   * Steps that answered 429 with `Retry-After`: route index → the earliest time (epoch ms) to send
   * them again in this call (made with the first one).
   */
  retryAfter?: Map<number, number>;
  /** The last answer's status, cache status and log id. */
  status: number;
  cacheStatus: "HIT" | "MISS" | null;
  logId: string | null;
  /**
   * USD the call's dropped answers cost, as far as the client can know (each failure's `cost`):
   * an answer the validator rejected, the usage a broken stream reported; unset while none was
   * known. The event's `failedAttemptsCost`.
   */
  failedAttemptsCost?: number;
  /** The last step the call heard from, for a failed call's provider and model. */
  lastEntry: RouteEntry | undefined;
  /** The metadata the call sends besides `route`, and its policy's decision (`call-policy.ts`). */
  metadata?: ChatOptions["metadata"];
  decision?: PolicyDecision | undefined;
  /** Steps the client's guards skipped or demoted (made with the first one). */
  steered?: SteeredStep[];
  /** The hedges of the call's attempts (`hedge/hedge.ts`). */
  hedges?: HedgeRecord[];
  /** The timer of a wait or attempt timeout in progress (cleared when the call ends). */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Aborts the attempt in progress at its timeout (`attemptTimeoutMs`; see `attempt.ts`). */
  attemptTimeout?: AbortController;
  /**
   * The error that stopped the call (its deadline, an abort), once it is stopped: each part of
   * the call throws it at its next step, and the call has already ended with it.
   */
  readonly halted: GatewayError | undefined;
  /** True once the call has ended: nothing it still hears of counts for the breaker. */
  readonly ended: boolean;
}
