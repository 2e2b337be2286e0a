/**
 * @module
 * Converts a provider's stream (as normalised deltas) into Anthropic's Messages stream events:
 * `message_start`, one text `content_block_start`, `content_block_delta` per piece of text, then
 * `content_block_stop`, `message_delta` (stop reason and usage) and `message_stop` only when the
 * provider signalled its own end, so a stream that ends early stays visibly incomplete.
 */
import { formatSseEvent, type StreamDelta } from "../../providers/index.ts";
import type { StreamConverter } from "../step/step-target.ts";
import { anthropicStopReason } from "./anthropic-vocabulary.ts";

export function createAnthropicStreamConverter(
  model: string,
  id: string,
  _created: number,
): StreamConverter {
  let started = false;
  let stopReason: string | null = null;
  const usage = { input_tokens: 0, output_tokens: 0 };
  const event = (type: string, data: Record<string, unknown>) =>
    formatSseEvent({ event: type, data: JSON.stringify({ type, ...data }) });
  const start = () => {
    if (started) return "";
    started = true;
    return (
      event("message_start", {
        message: {
          id: `msg_${id}`,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage },
        },
      }) + event("content_block_start", { index: 0, content_block: { type: "text", text: "" } })
    );
  };
  return {
    contentType: "text/event-stream; charset=utf-8",
    convert(deltas: readonly StreamDelta[]): string {
      let text = "";
      for (const delta of deltas) {
        switch (delta.type) {
          case "text":
            text += start();
            text += event("content_block_delta", {
              index: 0,
              delta: { type: "text_delta", text: delta.text },
            });
            break;
          case "finish":
            stopReason = anthropicStopReason(delta.reason) ?? "end_turn";
            break;
          case "usage":
            usage.input_tokens = delta.usage.tokensIn ?? usage.input_tokens;
            usage.output_tokens = delta.usage.tokensOut ?? usage.output_tokens;
            break;
          case "error":
            text += event("error", {
              error: { type: delta.error.type, message: delta.error.message },
            });
            break;
          case "done":
            text += start();
            text += event("content_block_stop", { index: 0 });
            text += event("message_delta", {
              delta: { stop_reason: stopReason ?? "end_turn", stop_sequence: null },
              usage: { ...usage },
            });
            text += event("message_stop", {});
            break;
        }
      }
      return text;
    },
  };
}
