/**
 * @module
 * Anthropic's words for what the gateway knows in normalised form: the `stop_reason` of a finish
 * reason, and the error `type` Anthropic documents for an HTTP status.
 */
import type { FinishReason } from "../../providers/index.ts";

const stopReasons: Readonly<Record<FinishReason, string | null>> = {
  stop: "end_turn",
  length: "max_tokens",
  content_filter: "refusal",
  tool_calls: "tool_use",
  error: null,
  unknown: null,
};

/** Anthropic's `stop_reason` for a normalised finish reason. */
export function anthropicStopReason(reason: FinishReason): string | null {
  return stopReasons[reason];
}

/** Anthropic's error type for an HTTP status (its documented pairs). */
export function anthropicErrorType(status: number): string {
  if (status === 400) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 402) return "billing_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 504) return "timeout_error";
  if (status === 529) return "overloaded_error";
  return "api_error";
}
