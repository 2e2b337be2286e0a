/**
 * @module
 * The provider-neutral shapes every adapter converts to and from. A route step names a provider
 * slug and a model; the adapter for that slug knows the endpoint path, the auth header, the
 * request body and how to read the response, error and stream formats.
 *
 * Run-time dependency free: the client and the Worker import this.
 */

export type ChatRole = "system" | "user" | "assistant";

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
}

/** A chat request in one shape for every provider. */
export interface ChatRequest {
  readonly messages: readonly ChatMessage[];
  /** Upper bound on generated tokens. Anthropic requires one; adapters default it to 1024. */
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly stop?: readonly string[];
  readonly stream?: boolean;
}

export type FinishReason =
  | "stop"
  | "length"
  | "content_filter"
  | "tool_calls"
  | "error"
  | "unknown";

export interface TokenUsage {
  readonly tokensIn: number;
  readonly tokensOut: number;
}

/** A provider's answer, normalised. */
export interface ChatResult {
  readonly text: string;
  readonly provider: string;
  /** The model the provider says answered (may differ from the requested alias). */
  readonly model: string;
  readonly usage: TokenUsage;
  readonly finishReason: FinishReason;
}

/** What a provider error body says, normalised. */
export interface ProviderErrorInfo {
  readonly status: number;
  /** The provider's own error type or code, e.g. `rate_limit_error`, `context_length_exceeded`. */
  readonly type: string;
  readonly message: string;
}

/** One piece of a streamed answer. */
export type StreamDelta =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "usage"; readonly usage: Partial<TokenUsage> }
  | { readonly type: "finish"; readonly reason: FinishReason }
  /** The provider signalled the end of the stream (`[DONE]`, `message_stop`, ...). */
  | { readonly type: "done" }
  | { readonly type: "error"; readonly error: ProviderErrorInfo };

/** One server-sent event, as parsed from the wire. */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** Wire format family: which mock server the emulator starts for a provider. */
export type WireFormat = "openai" | "anthropic" | "workers-ai" | "google";

/** Turns one provider's stream events into normalised deltas. Stateful; one per stream. */
export type StreamParser = (event: SseEvent) => StreamDelta[];

export interface ProviderAdapter {
  /** The AI Gateway provider slug: `openai`, `anthropic`, `workers-ai`, `custom-acme`... */
  readonly slug: string;
  readonly displayName: string;
  readonly format: WireFormat;
  /** Endpoint path under the provider, as used in a universal step and a provider-native URL. */
  endpoint(model: string, request: ChatRequest): string;
  /** Non-secret headers every request to this provider needs, e.g. `anthropic-version`. */
  readonly defaultHeaders?: Readonly<Record<string, string>>;
  /**
   * True when the provider continues a trailing assistant message (a prefill) instead of
   * answering anew, as Anthropic does. `client.stream` uses it to continue a broken stream.
   */
  readonly acceptsPrefill?: boolean;
  /** Headers that carry a key in this provider's form, e.g. `{ authorization: "Bearer …" }`. */
  authHeaders(key: string): Record<string, string>;
  /** The provider's own request body for a normalised request. */
  requestBody(model: string, request: ChatRequest): Record<string, unknown>;
  /**
   * Reads a successful response body (parsed JSON, JSON text or bytes). Throws
   * `ProviderResponseError` when the body is not one. `requestedModel` names the model when the
   * body does not (Workers AI never does).
   */
  parseResponse(body: unknown, requestedModel?: string): ChatResult;
  /** Reads an error body (any shape, possibly not JSON) into a normalised error. */
  parseError(status: number, body: unknown): ProviderErrorInfo;
}
