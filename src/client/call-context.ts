/**
 * @module
 * What the parts of a call share: the call as `failover.ts`, `record.ts` and the hedge see it
 * ({@link CallContext}), a failed attempt ({@link Failure}) and a step's failure ({@link Trial}),
 * and what a streamed call adds ({@link Streamer}, made by `stream-reader.ts`). Types only: the
 * call itself is `call.ts`.
 */

import type { ChatRequest, FinishReason, ProviderAdapter, TokenUsage } from "../providers/types.ts";
import type { PolicyDecision } from "../routes/policy.ts";
import type { GatewayError } from "./call-errors.ts";
import type { PreparedRoute, RouteEntry } from "./client.ts";
import type { FailedStep } from "./event.ts";
import type { SteeredStep } from "./guards.ts";
import type { OutputRejection } from "./route-errors.ts";
import type { ChatOptions, ChatResponse, GatewayClientOptions } from "./types.ts";

/** A complete answer, as a {@link Streamer} read it. */
export interface StreamAnswer {
  readonly text: string;
  readonly usage: TokenUsage;
  readonly finish: FinishReason;
}

/**
 * What a streamed call adds to a chat call: the requests that continue a broken answer, reading
 * 2xx streams into deltas for the caller, and the text the caller was shown. Made by
 * `stream-reader.ts`, loaded with the first stream.
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
  ): Promise<StreamAnswer | { readonly error: GatewayError; readonly midStream: boolean }>;
  /** The answer shown broke at `step` for `reason`: the next answer starts with a restart. */
  broke(step: number, reason: string): void;
  /** Stops the read in progress (the call stopped). */
  cancel(): void;
}

/** A running call: `run` it once; `halt` stops it at once. */
export interface Call {
  run(): Promise<ChatResponse>;
  halt(error: GatewayError): void;
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
} & (
  | { readonly kind: "transport"; readonly cause: unknown }
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

/** What `failover.ts` needs of a call. */
export interface CallContext {
  readonly client: GatewayClientOptions;
  /**
   * The route the call works with. Unset only for a call to an unknown route, which ends before
   * any attempt: only the event (`record.ts`) sees such a call, and reads it with care.
   */
  readonly route: PreparedRoute;
  readonly adapters: Map<string, ProviderAdapter>;
  readonly streamer: Streamer | undefined;
  readonly policy: string;
  readonly maxAttempts: number;
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
  attempts: number;
  /** Backoff waits so far. */
  waits: number;
  /** Notes a step's outcome (see `createCall`). */
  observe(entry: RouteEntry, ok: boolean, failure?: Omit<Trial, "entry">, health?: boolean): void;
  /** Notes that the steps before `position` failed (the gateway moved on from each). */
  passedOver(order: readonly RouteEntry[], position: number): void;
  /** The timer of a wait or attempt timeout in progress (cleared when the call ends). */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Aborts the attempt in progress at its timeout (`attemptTimeoutMs`; see `failover.ts`). */
  attemptTimeout?: AbortController;
  /** Throws the error that halted the call (deadline, abort), if it was halted. */
  check(): void;
  now(): number;
  readonly deadlineMs: number;
  // What the call's event says (`record.ts`):
  readonly options: ChatOptions;
  readonly id: string;
  readonly startedAt: number;
  readonly mode: string;
  /** The last answer's status, cache status and log id. */
  readonly status: number;
  readonly cacheStatus: "HIT" | "MISS" | null;
  readonly logId: string | null;
  /** The last step the call heard from, for a failed call's provider and model. */
  readonly lastEntry: RouteEntry | undefined;
  /** The metadata the call sent besides `route`, and its policy's decision (`call-policy.ts`). */
  readonly metadata?: ChatOptions["metadata"];
  readonly decision?: PolicyDecision | undefined;
  /** Steps the client's guards skipped or demoted (made with the first one). */
  readonly steered?: SteeredStep[];
  /** The hedges of the call's attempts (`hedge/hedge.ts`). */
  readonly hedges?: unknown[];
}
