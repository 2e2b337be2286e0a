/**
 * @module
 * Turns a step outcome into the client's response: a cache hit, the answer, or (when no step is
 * left to try) the failure. Shared by the provider-native, compat and dynamic endpoints.
 */

import type { GatewayCall } from "../request/gateway-call.ts";
import type { StepFailure, StepOutcome, StepTarget } from "../step/step-target.ts";
import { deliverCached, deliverResponse } from "./deliver.ts";
import { deliverFailure } from "./deliver-failure.ts";
import type { DeliveredStep, ServingStep } from "./log-writer.ts";

/** Delivers a cache hit or an answer, converted the way the target says (compat). */
export async function serveAnswer(
  call: GatewayCall,
  target: StepTarget,
  serving: ServingStep,
  outcome: Exclude<StepOutcome, { kind: "failed" }>,
): Promise<DeliveredStep> {
  if (outcome.kind === "cached") return deliverCached(call, serving, outcome.entry);
  const ok = outcome.response.status < 300;
  const convert = !ok && target.toClientError && outcome.gatewayAnswer === undefined;
  const response = convert ? target.toClientError!(outcome.response) : outcome.response;
  return deliverResponse(call, serving, response, {
    attempts: outcome.attempts,
    ...(outcome.gatewayAnswer ? { error: outcome.gatewayAnswer } : {}),
    streaming: target.streaming,
    ...(target.cache ? { cache: target.cache } : {}),
    ...(ok && target.streamConverter ? { streamConverter: target.streamConverter } : {}),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
  });
}

/** Delivers the failure of the last step tried. */
export function serveFailure(
  call: GatewayCall,
  target: Pick<StepTarget, "toClientError">,
  serving: ServingStep,
  failure: StepFailure,
  attempts: number,
): Promise<DeliveredStep> {
  const converted: StepFailure =
    failure.kind === "response" && target.toClientError
      ? { ...failure, response: target.toClientError(failure.response) }
      : failure;
  return deliverFailure(call, serving, converted, attempts);
}

/** Delivers whatever a step came to. */
export async function serveOutcome(
  call: GatewayCall,
  target: StepTarget,
  serving: ServingStep,
  outcome: StepOutcome,
): Promise<DeliveredStep> {
  if (outcome.kind === "failed") {
    return serveFailure(call, target, serving, outcome.failure, outcome.attempts);
  }
  return serveAnswer(call, target, serving, outcome);
}
