/**
 * @module
 * Why a step failed, in the few classes an analyst looks for first, read from what the event
 * records of the step (`FailedStep`: its status, error code and where it broke) or of a call that
 * failed without listing its steps. The first rule that matches decides:
 *
 * | reason | when |
 * |---|---|
 * | `validation` | the caller's validator rejected the answer (`output_rejected`) |
 * | `stream_break` | a 2xx stream broke, before or after text reached the caller (`at` `stream`, `mid-stream`; `incomplete_stream`) |
 * | `timeout` | the step timed out: `timeout`, `deadline_exceeded`, status 408 or 504 |
 * | `rate_limited` | status 429 (`rate_limited`) |
 * | `refusal` | the provider refused this request but another step may take it: 400, 404, 413, 422 (context length, content policy, model not found) |
 * | `client_error` | any other 4xx (401/403 keys, 409…) |
 * | `server_error` | 5xx (529 overloaded included) |
 * | `unreadable` | a complete answer that could not be read (`invalid_response`) |
 * | `network` | no answer at all: status 0, `network_error`, `aborted` |
 * | `no_detail` | the gateway passed over the step and said nothing (status and code null); the gateway's logs can tell (`log-failure-reasons.ts`) |
 * | `other` | anything else |
 */
import type { FailedStep } from "../client/event.ts";

/** The failure classes, in the order reports list them. */
export const failureReasons = [
  "rate_limited",
  "client_error",
  "server_error",
  "timeout",
  "stream_break",
  "refusal",
  "validation",
  "unreadable",
  "network",
  "no_detail",
  "other",
] as const;

export type FailureReason = (typeof failureReasons)[number];

/** A short label of each reason for the table and HTML. */
export const failureReasonLabels: Readonly<Record<FailureReason, string>> = {
  rate_limited: "429 rate limited",
  client_error: "other 4xx",
  server_error: "5xx",
  timeout: "timeout",
  stream_break: "stream break",
  refusal: "refusal (400/404/413/422)",
  validation: "validation",
  unreadable: "unreadable answer",
  network: "network",
  no_detail: "no detail",
  other: "other",
};

const refusalStatuses = new Set([400, 404, 413, 422]);

/** The reason of one failed step (see the module doc). */
export function failureReasonOf(
  failed: Pick<FailedStep, "status" | "errorCode"> & { at?: FailedStep["at"] },
): FailureReason {
  const { status, errorCode, at } = failed;
  if (errorCode === "output_rejected") return "validation";
  if (at === "stream" || at === "mid-stream" || errorCode === "incomplete_stream")
    return "stream_break";
  if (errorCode === "timeout" || errorCode === "deadline_exceeded") return "timeout";
  if (status === 408 || status === 504) return "timeout";
  if (status === 429 || errorCode === "rate_limited") return "rate_limited";
  if (status !== null && refusalStatuses.has(status)) return "refusal";
  if (status !== null && status >= 400 && status < 500) return "client_error";
  if (status !== null && status >= 500) return "server_error";
  if (errorCode === "invalid_response") return "unreadable";
  if (status === 0 || errorCode === "network_error" || errorCode === "aborted") return "network";
  if (status === null && errorCode === null) return "no_detail";
  if (errorCode === "authentication_failed") return "client_error";
  return "other";
}
