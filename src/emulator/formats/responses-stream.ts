/**
 * @module
 * Converts a provider's stream (as normalised deltas) into OpenAI Responses stream events:
 * `response.created`, the message item and its `output_text` part, `response.output_text.delta`
 * per piece of text, then the `.done` events and `response.completed` only when the provider
 * signalled its own end, so a stream that ends early stays visibly incomplete.
 */
import { formatSseEvent, type StreamDelta } from "../../providers/index.ts";
import type { StreamConverter } from "../step/step-target.ts";
import { outputMessage, responseObject } from "./responses-objects.ts";

export function createResponsesStreamConverter(
  model: string,
  id: string,
  created: number,
): StreamConverter {
  let sequence = 0;
  let started = false;
  let text = "";
  let finish: string | undefined;
  const usage = { input: 0, output: 0 };
  const itemId = `msg_${id}`;
  const event = (type: string, data: Record<string, unknown>) =>
    formatSseEvent({
      event: type,
      data: JSON.stringify({ type, sequence_number: sequence++, ...data }),
    });
  const part = () => ({ type: "output_text", text, annotations: [] });
  const start = () => {
    if (started) return "";
    started = true;
    const response = responseObject(model, id, created, {
      status: "in_progress",
      output: [],
      usage: null,
    });
    return (
      event("response.created", { response }) +
      event("response.in_progress", { response }) +
      event("response.output_item.added", {
        output_index: 0,
        item: { ...outputMessage(id, "", "in_progress"), content: [] },
      }) +
      event("response.content_part.added", {
        item_id: itemId,
        output_index: 0,
        content_index: 0,
        part: part(),
      })
    );
  };
  return {
    contentType: "text/event-stream; charset=utf-8",
    convert(deltas: readonly StreamDelta[]): string {
      let out = "";
      for (const delta of deltas) {
        switch (delta.type) {
          case "text":
            out += start();
            text += delta.text;
            out += event("response.output_text.delta", {
              item_id: itemId,
              output_index: 0,
              content_index: 0,
              delta: delta.text,
            });
            break;
          case "finish":
            finish = delta.reason;
            break;
          case "usage":
            usage.input = delta.usage.tokensIn ?? usage.input;
            usage.output = delta.usage.tokensOut ?? usage.output;
            break;
          case "error":
            out += event("error", {
              code: delta.error.type,
              message: delta.error.message,
              param: null,
            });
            break;
          case "done": {
            out += start();
            const status = finish === "length" ? "incomplete" : "completed";
            const item = outputMessage(id, text, status);
            out += event("response.output_text.done", {
              item_id: itemId,
              output_index: 0,
              content_index: 0,
              text,
            });
            out += event("response.content_part.done", {
              item_id: itemId,
              output_index: 0,
              content_index: 0,
              part: part(),
            });
            out += event("response.output_item.done", { output_index: 0, item });
            out += event(status === "completed" ? "response.completed" : "response.incomplete", {
              response: responseObject(model, id, created, { status, output: [item], usage }),
            });
            break;
          }
        }
      }
      return out;
    },
  };
}
