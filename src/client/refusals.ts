/**
 * @module
 * What an error answer means for the rest of a call, read from its status and the provider's (or
 * the gateway's) error body: stop, move on to the next step, or try again. `failover.ts` acts on
 * it; the table is in {@link conductFor}'s description and in docs/client.md.
 */

/**
 * What the call does after a provider's error answer, by what the error means:
 *
 * | the step's error | conduct |
 * |---|---|
 * | content policy (`content_filter`, `content_policy_violation`, safety, moderation) | `stop`: returned at once, no other step tried |
 * | context length (`context_length_exceeded`, "prompt is too long", "maximum context length", 413) | `next`: the steps after it; this step is not tried again in the call |
 * | model not found (404, `model_not_found`, "does not exist") | `next` |
 * | model overloaded (529, `overloaded_error`, "overloaded") | `next` |
 * | 429 rate limited | `retry`: the steps after it; the step is not sent again before its `Retry-After`: the route again after it when the deadline allows, else without that step |
 * | 408, 409, 5xx; resets and timeouts | `retry`: the steps after it; with none, the route again after a backoff |
 * | any other 4xx (invalid request, authentication) | `stop` |
 */
export function conductFor(
  status: number,
  type: string,
  message: string,
): "stop" | "next" | "retry" {
  const text = `${type} ${message}`.toLowerCase();
  if (/content.?(filter|policy)|safety|moderation|flagged/.test(text)) return "stop";
  if (
    [404, 413, 529].includes(status) ||
    /context.?(length|window)|too long|maximum (context|prompt)|maximum number of tokens|model.?not.?found|does not exist|overload/.test(
      text,
    )
  ) {
    return "next";
  }
  return status === 408 || status === 409 || status === 429 || status > 499 ? "retry" : "stop";
}

/**
 * The gateway's own error envelope, `{ success: false, error: [{ code, message }], name:
 * "AiGatewayError" }`, or undefined for any other body.
 */
export function gatewayEnvelope(text: string): { code: string; message: string } | undefined {
  try {
    const json = JSON.parse(text) as {
      name?: unknown;
      error?: { code?: unknown; message?: unknown }[];
    };
    const first = (Array.isArray(json?.error) && json.error[0]) || undefined;
    return first !== undefined && (json.name === "AiGatewayError" || typeof first.code === "number")
      ? { code: String(first.code ?? "unknown"), message: String(first.message ?? "no message") }
      : undefined;
  } catch {
    return undefined;
  }
}
