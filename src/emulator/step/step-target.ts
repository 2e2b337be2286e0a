/**
 * @module
 * What one step is and what it comes to: the target a step runs against (built by the endpoints,
 * compat and dynamic routes), and the outcome `runStep` returns (read by delivery). Types only, so
 * the code that builds a step, the runner and delivery share them without importing each other.
 */
import type { StreamDelta } from "../../providers/index.ts";
import type { GatewayErrorResponse } from "../errors.ts";
import type { CachedResponse } from "../features/response-cache.ts";
import type { BufferedBody, UpstreamRequest, UpstreamResponse } from "../transport/attempt.ts";
import type { CredentialSource } from "./credentials.ts";
import type { RetryPolicy } from "./retry.ts";

/** Tokens of an answer; null where the answer does not say. */
export interface ResponseUsage {
  tokensIn: number | null;
  tokensOut: number | null;
  /** Prompt-cache tokens within `tokensIn`, read only for custom costs with cache rates. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** Turns a provider's stream deltas into another wire format (compat: OpenAI chunks). */
export interface StreamConverter {
  readonly contentType: string;
  convert(deltas: readonly StreamDelta[]): string;
}

/** How a step uses the cache; absent when caching is off for it. */
export interface CachePolicy {
  readonly key: string;
  readonly ttlSeconds: number;
  /** False under `cf-aig-skip-cache`: neither looked up nor stored. */
  readonly use: boolean;
}

/** The result of checking a buffered 2xx: usable as is, converted, or not an answer at all. */
export type BufferedCheck =
  | {
      readonly ok: true;
      readonly response: UpstreamResponse;
      /** The tokens the check read while parsing the answer, so delivery does not parse it again. */
      readonly usage?: ResponseUsage;
    }
  | { readonly ok: false; readonly response: UpstreamResponse; readonly reason: string };

/** Everything needed to run one step. */
export interface StepTarget {
  readonly provider: string;
  /** The model asked for (the `cf-aig-model` header and the log's `model`). */
  readonly model: string;
  /** Endpoint path under the provider: the log's `path` and part of the cache key. */
  readonly endpoint: string;
  readonly request: UpstreamRequest;
  /** The request asks for a stream; streamed answers are never cached. */
  readonly streaming: boolean;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly cache?: CachePolicy;
  /** The REST API's `/ai/run`, whose Guardrails statuses differ (see `features/guardrails.ts`). */
  readonly runApi?: boolean;
  /** Where the provider key came from (the log's `wholesale`, the REST API's error mapping). */
  readonly credential?: CredentialSource;
  /** Checks (and may convert) a buffered 2xx before it is accepted; compat uses it. */
  readonly checkBuffered?: (response: UpstreamResponse & { body: BufferedBody }) => BufferedCheck;
  /** Converts a 2xx stream to another wire format (compat: OpenAI chunks). */
  readonly streamConverter?: StreamConverter;
  /** Rewrites a non-2xx upstream response before it reaches the client (compat: OpenAI errors). */
  readonly toClientError?: (response: UpstreamResponse) => UpstreamResponse;
}

export type StepFailure =
  | { readonly kind: "response"; readonly response: UpstreamResponse; readonly error: string }
  | { readonly kind: "network-error"; readonly message: string }
  | { readonly kind: "timeout"; readonly timeoutMs: number }
  | { readonly kind: "refused"; readonly error: GatewayErrorResponse; readonly reason: string };

export type StepOutcome =
  | { readonly kind: "cached"; readonly entry: CachedResponse }
  | {
      readonly kind: "answered";
      readonly response: UpstreamResponse;
      readonly attempts: number;
      /** Tokens already read from a buffered answer (compat's check parses it). */
      readonly usage?: ResponseUsage;
      /**
       * The gateway's own answer in the provider's place (a Guardrails outcome), with the code
       * it is logged under; sent as it is, never converted to the client's shape.
       */
      readonly gatewayAnswer?: string;
    }
  | { readonly kind: "failed"; readonly failure: StepFailure; readonly attempts: number };
