/**
 * @module
 * The shape a client speaks, apart from the provider behind the gateway: OpenAI chat completions
 * (the compat endpoint and `/ai/v1/chat/completions`), Anthropic Messages (`/ai/v1/messages`) and
 * OpenAI Responses (`/ai/v1/responses`). A request in any of them is read into the normalised
 * chat request (`CompatRequest`); the provider's answer, error or stream comes back in the
 * client's shape, unless the provider speaks it already (then it passes through as sent).
 */
import type { ChatRequest, ChatResult, WireFormat } from "../../providers/index.ts";
import type { StreamConverter } from "../step/step-target.ts";

/** A client request, read: the model it names, the normalised request, and the body as sent. */
export interface CompatRequest {
  /** `provider/model`, `author/model`, `@cf/...` or `dynamic/route`, as the client wrote it. */
  readonly model: string;
  readonly chat: ChatRequest;
  /** The body as sent, for providers that speak the client's shape and take it unchanged. */
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface ClientFormat {
  /** The provider wire format that takes the client's body as sent (with `model` replaced). */
  readonly passThrough: WireFormat | undefined;
  /** A provider's answer, normalised, in the client's shape. */
  answer(result: ChatResult, model: string, id: string, created: number): Record<string, unknown>;
  /** An error body in the client's shape; `type` is the provider's error type or code. */
  error(type: string, message: string, status: number): Record<string, unknown>;
  /** Turns a provider's stream (as deltas) into the client's stream events. */
  stream(model: string, id: string, created: number): StreamConverter;
}
