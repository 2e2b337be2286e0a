/**
 * @module
 * OpenAI's Responses API as a client format (`/ai/v1/responses`): `input` (a string, or messages
 * with text content) and `instructions` are read into the normalised chat request; an answer
 * comes back as a `response` object with one `message` output of `output_text`. No provider is
 * called in this shape: every provider gets its own chat request, OpenAI included (the emulator's
 * choice, listed in docs/emulator.md).
 */
import type { ChatMessage, ChatRequest, ChatResult } from "../../providers/index.ts";
import { toOpenAiError } from "../compat/openai-shape.ts";
import { GatewayRequestError } from "../errors.ts";
import type { ClientFormat, CompatRequest } from "./client-format.ts";
import { outputMessage, responseObject } from "./responses-objects.ts";
import { createResponsesStreamConverter } from "./responses-stream.ts";

const invalid = (message: string) =>
  GatewayRequestError.invalid(`Invalid Responses request: ${message}.`);

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const roles: Readonly<Record<string, ChatMessage["role"]>> = {
  system: "system",
  developer: "system",
  user: "user",
  assistant: "assistant",
};

/** Text of a string or of `input_text` / `output_text` / `text` parts. */
function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let text = "";
  for (const part of content) {
    const type = isObject(part) ? part.type : undefined;
    if (type !== "input_text" && type !== "output_text" && type !== "text") return undefined;
    if (typeof (part as Fields).text !== "string") return undefined;
    text += (part as Fields).text as string;
  }
  return text;
}

function inputMessages(input: unknown): ChatMessage[] {
  if (typeof input === "string") return [{ role: "user", content: input }];
  if (!Array.isArray(input) || input.length === 0) {
    throw invalid("input must be a string or a non-empty array of messages");
  }
  return input.map((item, index): ChatMessage => {
    const fields = isObject(item) ? item : {};
    if (fields.type !== undefined && fields.type !== "message") {
      throw invalid(`input[${index}].type ${JSON.stringify(fields.type)} is not supported here`);
    }
    const role = typeof fields.role === "string" ? roles[fields.role] : undefined;
    if (role === undefined) {
      throw invalid(`input[${index}].role must be system, developer, user or assistant`);
    }
    const content = textOf(fields.content);
    if (content === undefined) {
      throw invalid(`input[${index}].content must be a string or an array of text parts`);
    }
    return { role, content };
  });
}

/**
 * Reads a Responses body.
 * @throws GatewayRequestError 400 naming the bad field.
 */
export function parseResponsesRequest(value: unknown): CompatRequest {
  if (!isObject(value)) throw invalid("the body must be a JSON object with model and input");
  if (typeof value.model !== "string" || value.model.trim() === "") {
    throw invalid('model is required, e.g. "openai/gpt-4.1"');
  }
  const messages = inputMessages(value.input);
  if (value.instructions !== undefined && value.instructions !== null) {
    if (typeof value.instructions !== "string") throw invalid("instructions must be a string");
    messages.unshift({ role: "system", content: value.instructions });
  }
  const chat: { -readonly [Key in keyof ChatRequest]: ChatRequest[Key] } = { messages };
  const maxTokens = value.max_output_tokens;
  if (maxTokens !== undefined && maxTokens !== null) {
    if (!Number.isInteger(maxTokens) || (maxTokens as number) < 1) {
      throw invalid("max_output_tokens must be a positive integer");
    }
    chat.maxTokens = maxTokens as number;
  }
  for (const [field, key] of [
    ["temperature", "temperature"],
    ["top_p", "topP"],
  ] as const) {
    const number = value[field];
    if (number === undefined || number === null) continue;
    if (typeof number !== "number" || !Number.isFinite(number)) {
      throw invalid(`${field} must be a number`);
    }
    chat[key] = number;
  }
  if (value.stream !== undefined && value.stream !== null && typeof value.stream !== "boolean") {
    throw invalid("stream must be true or false");
  }
  if (value.stream === true) chat.stream = true;
  return { model: value.model, chat, raw: value };
}

function answer(result: ChatResult, model: string, id: string, created: number) {
  const status = result.finishReason === "length" ? "incomplete" : "completed";
  return responseObject(model, id, created, {
    status,
    output: [outputMessage(id, result.text, status)],
    usage: { input: result.usage.tokensIn, output: result.usage.tokensOut },
  });
}

export const openAiResponsesFormat: ClientFormat = {
  passThrough: undefined,
  answer,
  error: (type, message) => toOpenAiError(type, message),
  stream: createResponsesStreamConverter,
};
