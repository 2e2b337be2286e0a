/**
 * @module
 * Runs one step against its upstream: the spend-limit check, the cache lookup, then attempts with
 * retries and backoff. The outcome is either an answer that ends the chain (a 2xx, or an error
 * status that does not trigger fallback, e.g. 400), a cache hit, or a failure after every attempt.
 *
 * What counts as a failure that is retried and then falls back (Cloudflare does not say; this is
 * the emulator's choice, listed in docs/emulator.md): a network error or reset, a timeout to first
 * byte, HTTP 429 and HTTP 5xx. HTTP 401 and 403 also fall back, without retries: a wrong, revoked
 * or expired key is the one provider's problem and another provider can still answer, while
 * retrying the same key cannot help. Other 4xx (a malformed or too-long request) end the chain,
 * since every provider would refuse them. With `failOn: "any-error"` every non-2xx falls back.
 *
 * Budget conduct:
 * - The final retry attempt of the last step waits without a timeout (Cloudflare: the final
 *   attempt waits until the request completes); every other attempt, and a step without retries,
 *   has the step's timeout to first byte.
 * - A timed-out attempt is not retried on the same hung step when a later step can answer: the
 *   chain falls back at once. On the last step it is retried (its final attempt has no timeout).
 * - A 429 is retried no sooner than its `Retry-After`; when that wait is longer than the step's
 *   timeout (its budget) the step gives up at once instead of waiting.
 */

import { retryAfterMs } from "../../wire/rate-limit-headers.ts";
import { type GatewayErrorResponse, gatewayError, gatewayErrorCodes } from "../errors.ts";
import { guardrailError, promptPhaseKinds, responsePhaseKinds } from "../features/guardrails.ts";
import type { FaultKind } from "../mocks/index.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import { headerOf, jsonUpstreamResponse } from "../transport/attempt.ts";
import { backoffDelay } from "./retry.ts";
import type { StepFailure, StepOutcome, StepTarget } from "./step-target.ts";

export interface RunStepOptions {
  /** No later step can answer: timeouts are retried here and the final attempt has none. */
  readonly last: boolean;
}

/** Whether an HTTP status from upstream is a failure that is retried and falls back. */
export function isFailureStatus(status: number, failOn: "retryable" | "any-error"): boolean {
  if (status === 429 || status >= 500 || isCredentialStatus(status)) return true;
  return failOn === "any-error" && status >= 400;
}

/** 401 and 403: the key was refused; fall back at once, since retrying the same key cannot help. */
export function isCredentialStatus(status: number): boolean {
  return status === 401 || status === 403;
}

/** Runs a step: spend limits, cache, then up to `retry.maxAttempts` attempts. */
export async function runStep(
  call: GatewayCall,
  target: StepTarget,
  options: RunStepOptions,
): Promise<StepOutcome> {
  const { services, gateway } = call;
  const spendLimits = gateway.settings.spend_limits;
  if (spendLimits?.enabled && spendLimits.rules.length > 0) {
    const refusal = gateway.spend.check(
      spendLimits.rules,
      { provider: target.provider, model: target.model, metadata: call.directives.metadata ?? {} },
      services.now(),
    );
    if (refusal) {
      const error = gatewayError(429, gatewayErrorCodes.spendLimitExceeded, refusal.message);
      return {
        kind: "failed",
        failure: { kind: "refused", error, reason: "spend_limit" },
        attempts: 0,
      };
    }
  }
  const guardrails = services.guardrails;
  if (guardrails) {
    const blocked = guardrailAnswer(call, target, promptPhaseKinds, 0);
    if (blocked) return blocked;
  }
  if (target.cache?.use && !target.streaming) {
    const entry = services.cache.get(target.cache.key, services.now());
    if (entry) return { kind: "cached", entry };
  }
  let failure: StepFailure | undefined;
  let wait = 0;
  const { maxAttempts } = target.retry;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (attempt > 1) {
      discardFailure(failure);
      await services.sleep(Math.max(wait, backoffDelay(target.retry, attempt - 1)));
    }
    if (call.signal.aborted) break;
    // Cloudflare: the final retry attempt waits until the request completes (a request without
    // retries keeps its timeout, which is how it returns an error in time).
    const final = options.last && maxAttempts > 1 && attempt === maxAttempts;
    const result = await services.transport(target.request, {
      timeoutMs: final ? undefined : target.timeoutMs,
      signal: call.signal,
    });
    wait = 0;
    const blocked =
      guardrails && result.kind === "response" && result.status < 300
        ? guardrailAnswer(call, target, responsePhaseKinds, attempt)
        : undefined;
    if (blocked) {
      // The provider answered; Guardrails block its answer before any of it reaches the client.
      if (result.kind === "response" && result.body.kind === "stream") result.body.abort();
      return blocked;
    }
    if (result.kind === "network-error") failure = result;
    else if (result.kind === "timeout") {
      failure = result;
      if (!options.last) return { kind: "failed", failure, attempts: attempt };
    } else if (isFailureStatus(result.status, services.failOn)) {
      failure = { kind: "response", response: result, error: `http_${result.status}` };
      if (isCredentialStatus(result.status)) return { kind: "failed", failure, attempts: attempt };
      if (result.status === 429 && attempt < maxAttempts) {
        const headers = { get: (name: string) => headerOf(result.headers, name) };
        const asked = retryAfterMs(headers, services.now()) ?? 0;
        if (asked > target.timeoutMs) return { kind: "failed", failure, attempts: attempt };
        wait = asked;
      }
    } else if (result.body.kind === "buffered" && result.status < 300 && target.checkBuffered) {
      const checked = target.checkBuffered({ ...result, body: result.body });
      if (checked.ok) {
        const { response, usage } = checked;
        return usage === undefined
          ? { kind: "answered", response, attempts: attempt }
          : { kind: "answered", response, attempts: attempt, usage };
      }
      failure = { kind: "response", response: checked.response, error: checked.reason };
    } else {
      return { kind: "answered", response: result, attempts: attempt };
    }
  }
  return {
    kind: "failed",
    failure: failure ?? { kind: "network-error", message: "request aborted" },
    attempts: maxAttempts,
  };
}

/** Releases a failure's upstream connection when its body will not be delivered. */
export function discardFailure(failure: StepFailure | undefined): void {
  if (failure?.kind === "response" && failure.response.body.kind === "stream") {
    failure.response.body.abort();
  }
}

/** The gateway error that stands for a failure without an upstream response. */
export function failureError(failure: StepFailure): GatewayErrorResponse | undefined {
  switch (failure.kind) {
    case "network-error":
      return gatewayError(
        502,
        gatewayErrorCodes.upstreamUnreachable,
        `Upstream request failed: ${failure.message}`,
      );
    case "timeout":
      return gatewayError(
        504,
        gatewayErrorCodes.upstreamTimeout,
        `Upstream sent no response within the request timeout of ${failure.timeoutMs} ms`,
      );
    case "refused":
      return failure.error;
    case "response":
      return undefined;
  }
}

/** A Guardrails outcome for this step, if the schedule has one: the gateway's error in the provider's place. */
function guardrailAnswer(
  call: GatewayCall,
  target: StepTarget,
  kinds: ReadonlySet<FaultKind>,
  attempts: number,
): Extract<StepOutcome, { kind: "answered" }> | undefined {
  const rule = call.services.guardrails?.pick(
    {
      provider: target.provider,
      model: target.model,
      stream: target.streaming,
      prefill: false,
      at: call.services.now(),
    },
    kinds,
  );
  if (rule === undefined) return undefined;
  const error = guardrailError(rule, target.runApi === true);
  return {
    kind: "answered",
    response: jsonUpstreamResponse(error.status, error.body),
    attempts,
    gatewayAnswer: rule.kind.replaceAll("-", "_"),
  };
}
