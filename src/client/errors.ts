/**
 * @module
 * `stepwise-gateway/client/errors`: the client's error tree. Every error extends {@link GatewayError} (a `StepwiseError`), has a
 * stable `code`, `isRetryable`, and a message that says the fix. `XxxError.isInstance(value)`
 * works across copies of the package.
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
 * | `AllStepsAtCapError` | `all_steps_at_cap` | yes (`retryAfterMs`; no request was sent) |
 */

export * from "./answer-errors.ts";
export * from "./call-errors.ts";
export { AllStepsAtCapError, type AllStepsAtCapErrorOptions } from "./limits/at-cap-error.ts";
export * from "./route-errors.ts";
