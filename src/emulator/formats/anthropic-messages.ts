/**
 * @module
 * Anthropic's Messages API as a client format (`/ai/v1/messages`): a request with `model`,
 * `max_tokens`, `messages` (text content) and an optional `system` is read into the normalised
 * chat request; an answer comes back as a `message`, an error as `{ type: "error", error }`.
 * Anthropic itself takes the body as sent.
 */
import type { ChatMessage, ChatRequest } from "../../providers/index.ts";
import { GatewayRequestError } from "../errors.ts";
import { createAnthropicStreamConverter } from "./anthropic-stream.ts";
import { anthropicErrorType, anthropicStopReason } from "./anthropic-vocabulary.ts";
import type { ClientFormat, CompatRequest } from "./client-format.ts";

const invalid = (message: string) =>
  GatewayRequestError.invalid(`Invalid Messages request: ${message}.`);

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Text of a string or of `[{ type: "text", text }]` blocks; undefined for anything else. */
function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text = "";
  for (const block of content) {
    if (!isObject(block) || block.type !== "text" || typeof block.text !== "string") {
      return undefined;
    }
    text += block.text;
  }
  return text;
}

/**
 * Reads an Anthropic Messages body.
 * @throws GatewayRequestError 400 naming the bad field.
 */
export function parseMessagesRequest(value: unknown): CompatRequest {
  if (!isObject(value)) throw invalid("the body must be a JSON object with model and messages");
  if (typeof value.model !== "string" || value.model.trim() === "") {
    throw invalid('model is required, e.g. "anthropic/claude-sonnet-4-5"');
  }
  if (!Number.isInteger(value.max_tokens) || (value.max_tokens as number) < 1) {
    throw invalid("max_tokens is required and must be a positive integer");
  }
  if (!Array.isArray(value.messages) || value.messages.length === 0) {
    throw invalid("messages must be a non-empty array");
  }
  const messages: ChatMessage[] = [];
  if (value.system !== undefined) {
    const system = textOf(value.system);
    if (system === undefined) throw invalid("system must be a string or an array of text blocks");
    messages.push({ role: "system", content: system });
  }
  value.messages.forEach((message, index) => {
    const role = isObject(message) ? message.role : undefined;
    if (role !== "user" && role !== "assistant") {
      throw invalid(`messages[${index}].role must be user or assistant`);
    }
    const content = textOf((message as Fields).content);
    if (content === undefined) {
      throw invalid(`messages[${index}].content must be a string or an array of text blocks`);
    }
    messages.push({ role, content });
  });
  const chat: { -readonly [Key in keyof ChatRequest]: ChatRequest[Key] } = {
    messages,
    maxTokens: value.max_tokens as number,
  };
  for (const [field, key] of [
    ["temperature", "temperature"],
    ["top_p", "topP"],
  ] as const) {
    const number = value[field];
    if (number === undefined) continue;
    if (typeof number !== "number" || !Number.isFinite(number)) {
      throw invalid(`${field} must be a number`);
    }
    chat[key] = number;
  }
  const stop = value.stop_sequences;
  if (stop !== undefined) {
    if (!Array.isArray(stop) || !stop.every((item) => typeof item === "string")) {
      throw invalid("stop_sequences must be an array of strings");
    }
    chat.stop = stop;
  }
  if (value.stream !== undefined && typeof value.stream !== "boolean") {
    throw invalid("stream must be true or false");
  }
  if (value.stream === true) chat.stream = true;
  return { model: value.model, chat, raw: value };
}

export const anthropicMessagesFormat: ClientFormat = {
  passThrough: "anthropic",
  answer: (result, model, id) => ({
    id: `msg_${id}`,
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text: result.text }],
    stop_reason: anthropicStopReason(result.finishReason),
    stop_sequence: null,
    usage: { input_tokens: result.usage.tokensIn, output_tokens: result.usage.tokensOut },
  }),
  error: (_type, message, status) => ({
    type: "error",
    error: { type: anthropicErrorType(status), message },
  }),
  stream: createAnthropicStreamConverter,
};
