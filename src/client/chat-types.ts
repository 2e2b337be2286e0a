/**
 * @module
 * What `client.chat` and `client.stream` accept and return: the call's options and the gateway
 * settings it sends as `cf-aig-*` headers, the answer and the step that served it, and a stream's
 * deltas. Types only; `types.ts` gathers them with the client's other shared types.
 */

import type { ChatMessage, FinishReason, StreamDelta, TokenUsage } from "../providers/types.ts";

/** How the gateway learns the route: the client sends the chain, or the gateway holds it. */
export type RouteMode = "universal" | "dynamic";

/** Backoff between retries: constant `d`, linear `d·n`, exponential `d·2^(n-1)`. */
export type Backoff = "constant" | "linear" | "exponential";

/**
 * What `client.stream` does when a stream breaks, stalls or sends an error after text reached the
 * caller: `restart` (default) goes on with the remaining steps and sends a `restart` delta first,
 * so the caller can drop what it showed; `continue` asks the next step to continue the text shown
 * (an assistant prefill, on providers that accept one; others restart); `fail` ends the call.
 */
export type StreamBreakPolicy = "restart" | "continue" | "fail";

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
