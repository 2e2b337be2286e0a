/**
 * @module
 * The OpenAI-compatible ("compat") endpoint's conversions: an OpenAI chat request into the
 * normalised `ChatRequest` the adapters take, and a provider's answer or error back into
 * OpenAI's `chat.completion` and error shapes.
 */
import type { ChatMessage, ChatRequest, ChatResult, FinishReason } from "../../providers/index.ts";
import { GatewayRequestError } from "../errors.ts";
import type { CompatRequest } from "../formats/client-format.ts";
import { providerOfAuthor } from "../request/rest-model.ts";

export type { CompatRequest } from "../formats/client-format.ts";

export type CompatModel =
  | { readonly kind: "dynamic"; readonly route: string }
  | { readonly kind: "provider"; readonly provider: string; readonly model: string };

const roles: Readonly<Record<string, ChatMessage["role"]>> = {
  system: "system",
  developer: "system",
  user: "user",
  assistant: "assistant",
};

/**
 * Reads an OpenAI chat completions body.
 * @throws GatewayRequestError 400 naming the bad field.
 */
export function parseCompatRequest(value: unknown): CompatRequest {
  const invalid = (message: string) =>
    GatewayRequestError.invalid(`Invalid chat completions request: ${message}.`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("the body must be a JSON object with model and messages");
  }
  const raw = value as Record<string, unknown>;
  if (typeof raw.model !== "string" || !raw.model.includes("/")) {
    throw invalid(
      'model must be "{provider}/{model}" or "dynamic/{route}", e.g. openai/gpt-4o-mini',
    );
  }
  if (!Array.isArray(raw.messages) || raw.messages.length === 0) {
    throw invalid("messages must be a non-empty array");
  }
  const messages = raw.messages.map((message, index): ChatMessage => {
    const record = (typeof message === "object" && message !== null ? message : {}) as Record<
      string,
      unknown
    >;
    const role = typeof record.role === "string" ? roles[record.role] : undefined;
    if (role === undefined) {
      throw invalid(`messages[${index}].role must be system, developer, user or assistant`);
    }
    const content = messageContent(record.content);
    if (content === undefined) {
      throw invalid(`messages[${index}].content must be a string or an array of text parts`);
    }
    return { role, content };
  });
  const chat: {
    -readonly [Key in keyof ChatRequest]: ChatRequest[Key];
  } = { messages };
  const maxTokens = raw.max_completion_tokens ?? raw.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) {
    if (!Number.isInteger(maxTokens) || (maxTokens as number) < 1) {
      throw invalid("max_tokens must be a positive integer");
    }
    chat.maxTokens = maxTokens as number;
  }
  for (const [field, key] of [
    ["temperature", "temperature"],
    ["top_p", "topP"],
  ] as const) {
    const number = raw[field];
    if (number === undefined || number === null) continue;
    if (typeof number !== "number" || !Number.isFinite(number)) {
      throw invalid(`${field} must be a number`);
    }
    chat[key] = number;
  }
  if (raw.stop !== undefined && raw.stop !== null) {
    const stop = typeof raw.stop === "string" ? [raw.stop] : raw.stop;
    if (!Array.isArray(stop) || !stop.every((item) => typeof item === "string")) {
      throw invalid("stop must be a string or an array of strings");
    }
    chat.stop = stop;
  }
  if (raw.stream !== undefined && raw.stream !== null && typeof raw.stream !== "boolean") {
    throw invalid("stream must be true or false");
  }
  if (raw.stream === true) chat.stream = true;
  return { model: raw.model, chat, raw };
}

function messageContent(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text") {
      const text = (part as { text?: unknown }).text;
      if (typeof text !== "string") return undefined;
      parts.push(text);
    }
  }
  return parts.join("");
}

/**
 * Splits `provider/model` (the model may contain `/`, e.g. `workers-ai/@cf/meta/...`); a catalog
 * author names its provider (`google/...` is Google AI Studio, `xai/...` Grok).
 */
export function splitCompatModel(model: string): CompatModel {
  const slash = model.indexOf("/");
  const provider = model.slice(0, slash);
  const rest = model.slice(slash + 1);
  if (rest === "") {
    throw GatewayRequestError.invalid(
      `Invalid model "${model}": the model name after "/" is empty.`,
    );
  }
  return provider === "dynamic"
    ? { kind: "dynamic", route: rest }
    : { kind: "provider", provider: providerOfAuthor(provider), model: rest };
}

/** OpenAI's finish reasons for normalised ones. */
export function openAiFinishReason(reason: FinishReason): string | null {
  return reason === "error" || reason === "unknown" ? null : reason;
}

/** A `chat.completion` body for a normalised answer. */
export function toOpenAiCompletion(
  result: ChatResult,
  model: string,
  id: string,
  created: number,
): Record<string, unknown> {
  return {
    id: `chatcmpl-${id}`,
    object: "chat.completion",
    created,
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: result.text },
        finish_reason: openAiFinishReason(result.finishReason),
      },
    ],
    usage: {
      prompt_tokens: result.usage.tokensIn,
      completion_tokens: result.usage.tokensOut,
      total_tokens: result.usage.tokensIn + result.usage.tokensOut,
    },
  };
}

/** An OpenAI error body. */
export function toOpenAiError(type: string, message: string): Record<string, unknown> {
  return { error: { message, type, code: type, param: null } };
}
