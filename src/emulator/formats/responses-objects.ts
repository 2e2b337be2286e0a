/**
 * @module
 * The objects of OpenAI's Responses API the gateway answers with: a `response` and its `message`
 * output item, for whole answers and for the events of a stream.
 */

/** The `message` output item holding an answer's text. */
export function outputMessage(id: string, text: string, status: string): Record<string, unknown> {
  return {
    type: "message",
    id: `msg_${id}`,
    status,
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

/** A `response` object; `output` and `usage` as far as they are known. */
export function responseObject(
  model: string,
  id: string,
  created: number,
  fields: {
    readonly status: "in_progress" | "completed" | "incomplete";
    readonly output: readonly Record<string, unknown>[];
    readonly usage: { readonly input: number; readonly output: number } | null;
  },
): Record<string, unknown> {
  return {
    id: `resp_${id}`,
    object: "response",
    created_at: created,
    status: fields.status,
    model,
    output: fields.output,
    error: null,
    incomplete_details: fields.status === "incomplete" ? { reason: "max_output_tokens" } : null,
    usage:
      fields.usage === null
        ? null
        : {
            input_tokens: fields.usage.input,
            output_tokens: fields.usage.output,
            total_tokens: fields.usage.input + fields.usage.output,
          },
  };
}
