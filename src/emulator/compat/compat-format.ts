/**
 * @module
 * OpenAI's chat completions as a client format: what the compat endpoint, universal steps with
 * `provider: "compat"`, dynamic routes and the REST API's `/ai/v1/chat/completions` answer in.
 * OpenAI-format providers take the body as sent.
 */
import type { ClientFormat } from "../formats/client-format.ts";
import { toOpenAiCompletion, toOpenAiError } from "./openai-shape.ts";
import { createOpenAiStreamConverter } from "./openai-stream.ts";

export const openAiChatFormat: ClientFormat = {
  passThrough: "openai",
  answer: toOpenAiCompletion,
  error: (type, message) => toOpenAiError(type, message),
  stream: createOpenAiStreamConverter,
};
