/**
 * @module
 * The client's error tree, in one import. Every error extends {@link GatewayError} (a
 * `StepwiseError`), has a stable `code` and `isRetryable`, and a message that says the fix.
 *
 * | class | code | retryable |
 * |---|---|---|
 * | `ApiCallError` | `api_call_error` | 408, 409, 429, 5xx |
 * | `AuthenticationError` | `authentication_failed` | no |
 * | `RateLimitedError` | `rate_limited` | yes (`retryAfterMs`) |
 * | `NetworkError` | `network_error` | yes |
 * | `TimeoutError` | `timeout` | yes |
 * | `DeadlineExceededError` | `deadline_exceeded` | yes (with a fresh deadline) |
 * | `AbortedError` | `aborted` | no |
 * | `InvalidResponseError` | `invalid_response` | yes |
 * | `IncompleteStreamError` | `incomplete_stream` | yes |
 * | `AllStepsFailedError` | `all_steps_failed` | when any step's error is |
 * | `OutputRejectedError` | `output_rejected` | no |
 * | `UnknownRouteError` | `unknown_route` | no |
 * | `InvalidOptionsError` | `invalid_options` | no |
 */
export {
  ApiCallError,
  type ApiCallErrorOptions,
  AuthenticationError,
  type FromResponseOptions,
  isRetryableStatus,
  maxResponseBodyLength,
  parseRetryAfter,
  RateLimitedError,
  type RateLimitedErrorOptions,
} from "./errors/api-call-error.ts";
export {
  GatewayError,
  type GatewayErrorOptions,
  type StepReference,
} from "./errors/gateway-error.ts";
export {
  AllStepsFailedError,
  IncompleteStreamError,
  type IncompleteStreamErrorOptions,
  InvalidResponseError,
  type InvalidResponseErrorOptions,
  OutputRejectedError,
  type OutputRejection,
  type StepFailure,
} from "./errors/result-errors.ts";
export {
  AbortedError,
  DeadlineExceededError,
  type DeadlineExceededErrorOptions,
  NetworkError,
  TimeoutError,
  type TimeoutErrorOptions,
} from "./errors/transport-errors.ts";
export { InvalidOptionsError, UnknownRouteError } from "./errors/usage-errors.ts";
