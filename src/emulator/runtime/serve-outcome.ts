/**
 * @module
 * Turns a step outcome into the client's response: a cache hit, the answer, or (when no step is
 * left to try) the failure. Shared by the provider-native, compat and dynamic endpoints.
 */
import type { UpstreamResponse } from "./attempt.ts";
import { deliverCached, deliverResponse } from "./deliver.ts";
import { deliverFailure } from "./deliver-failure.ts";
import type { GatewayCall } from "./gateway-call.ts";
import type { DeliveredStep, ServingStep } from "./log-writer.ts";
import type { StepFailure, StepOutcome, StepTarget } from "./step-runner.ts";
import type { StreamConverter } from "./stream-pipe.ts";

export interface ServeOptions {
  readonly streamConverter?: StreamConverter;
  /** Rewrites a non-2xx upstream response before it reaches the client. */
  readonly toClientError?: (response: UpstreamResponse) => UpstreamResponse;
}

/** Delivers a cache hit or an answer. */
export async function serveAnswer(
  call: GatewayCall,
  target: StepTarget,
  serving: ServingStep,
  outcome: Exclude<StepOutcome, { kind: "failed" }>,
  options: ServeOptions = {},
): Promise<DeliveredStep> {
  if (outcome.kind === "cached") return deliverCached(call, serving, outcome.entry);
  const ok = outcome.response.status < 300;
  const response =
    !ok && options.toClientError ? options.toClientError(outcome.response) : outcome.response;
  return deliverResponse(call, serving, response, {
    attempts: outcome.attempts,
    streaming: target.streaming,
    ...(target.cache ? { cache: target.cache } : {}),
    ...(ok && options.streamConverter ? { streamConverter: options.streamConverter } : {}),
  });
}

/** Delivers the failure of the last step tried. */
export function serveFailure(
  call: GatewayCall,
  serving: ServingStep,
  failure: StepFailure,
  attempts: number,
  options: ServeOptions = {},
): Promise<DeliveredStep> {
  const converted: StepFailure =
    failure.kind === "response" && options.toClientError
      ? { ...failure, response: options.toClientError(failure.response) }
      : failure;
  return deliverFailure(call, serving, converted, attempts);
}

/** Delivers whatever a single-step request came to. */
export async function serveOutcome(
  call: GatewayCall,
  target: StepTarget,
  serving: ServingStep,
  outcome: StepOutcome,
  options: ServeOptions = {},
): Promise<DeliveredStep> {
  if (outcome.kind === "failed") {
    return serveFailure(call, serving, outcome.failure, outcome.attempts, options);
  }
  return serveAnswer(call, target, serving, outcome, options);
}
