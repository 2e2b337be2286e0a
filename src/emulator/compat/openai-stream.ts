/**
 * @module
 * Converts a provider's stream (as normalised deltas) into OpenAI `chat.completion.chunk` events,
 * ending with `data: [DONE]` only when the provider signalled its own end: a stream that ends
 * early stays visibly incomplete.
 */
import { formatSseEvent, type StreamDelta } from "../../providers/index.ts";
import type { StreamConverter } from "../step/step-target.ts";
import { openAiFinishReason } from "./openai-shape.ts";

export function createOpenAiStreamConverter(
  model: string,
  id: string,
  created: number,
): StreamConverter {
  let roleSent = false;
  let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    formatSseEvent({
      data: JSON.stringify({
        id: `chatcmpl-${id}`,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finishReason }],
      }),
    });
  return {
    contentType: "text/event-stream; charset=utf-8",
    convert(deltas: readonly StreamDelta[]): string {
      let text = "";
      for (const delta of deltas) {
        switch (delta.type) {
          case "text":
            text += chunk(
              roleSent ? { content: delta.text } : { role: "assistant", content: delta.text },
            );
            roleSent = true;
            break;
          case "finish":
            text += chunk({}, openAiFinishReason(delta.reason) ?? "stop");
            break;
          case "usage":
            usage = {
              prompt_tokens: delta.usage.tokensIn ?? usage?.prompt_tokens ?? 0,
              completion_tokens: delta.usage.tokensOut ?? usage?.completion_tokens ?? 0,
            };
            break;
          case "error":
            text += formatSseEvent({
              data: JSON.stringify({
                error: { message: delta.error.message, type: delta.error.type, code: null },
              }),
            });
            break;
          case "done":
            if (usage) {
              text += formatSseEvent({
                data: JSON.stringify({
                  id: `chatcmpl-${id}`,
                  object: "chat.completion.chunk",
                  created,
                  model,
                  choices: [],
                  usage: {
                    ...usage,
                    total_tokens: usage.prompt_tokens + usage.completion_tokens,
                  },
                }),
              });
            }
            text += formatSseEvent({ data: "[DONE]" });
            break;
        }
      }
      return text;
    },
  };
}
