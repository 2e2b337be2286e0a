/**
 * @module
 * Answering with a failure: the last step's upstream error, or a gateway error (502, 504, 429)
 * when there is no upstream response; and logging failed steps that a later step replaces.
 */
import type { GatewayErrorResponse } from "../errors.ts";
import type { GatewayCall } from "../request/gateway-call.ts";
import { failureError } from "../step/step-runner.ts";
import type { StepFailure } from "../step/step-target.ts";
import { deliverResponse, responseHeaderList } from "./deliver.ts";
import { type DeliveredStep, recordStep, type ServingStep } from "./log-writer.ts";

/** Delivers the failure of the last step tried: its upstream response, or a gateway error. */
export async function deliverFailure(
  call: GatewayCall,
  serving: ServingStep,
  failure: StepFailure,
  attempts: number,
): Promise<DeliveredStep> {
  if (failure.kind === "response") {
    return deliverResponse(call, serving, failure.response, { attempts });
  }
  return deliverGatewayError(call, serving, failureError(failure)!, attempts, failureCode(failure));
}

/** Sends a gateway error with the step headers, and logs it. */
export function deliverGatewayError(
  call: GatewayCall,
  serving: ServingStep,
  error: GatewayErrorResponse,
  attempts: number,
  code: string,
): DeliveredStep {
  const logId = call.nextLogId();
  const text = JSON.stringify(error.body);
  if (!call.response.headersSent && !call.response.destroyed) {
    const headers = responseHeaderList(call, serving, logId, "MISS");
    headers.push(
      "content-type",
      "application/json",
      "content-length",
      String(Buffer.byteLength(text)),
    );
    call.response.writeHead(error.status, headers);
    call.response.end(text);
  }
  return recordStep(call, serving, {
    logId,
    status: error.status,
    success: false,
    cached: false,
    usage: { tokensIn: null, tokensOut: null },
    attempts,
    responseBytes: Buffer.byteLength(text),
    responseBody: Buffer.from(text),
    responseContentType: "application/json",
    error: code,
  });
}

/** Logs a failed step that a later step replaces (nothing is sent to the client). */
export function recordFailure(
  call: GatewayCall,
  serving: ServingStep,
  failure: StepFailure,
  attempts: number,
): void {
  const status =
    failure.kind === "response" ? failure.response.status : failureError(failure)!.status;
  recordStep(call, serving, {
    logId: call.nextLogId(),
    status,
    success: false,
    cached: false,
    usage: { tokensIn: null, tokensOut: null },
    attempts,
    responseBytes:
      failure.kind === "response" && failure.response.body.kind === "buffered"
        ? failure.response.body.bytes.length
        : 0,
    ...(failure.kind === "response" && failure.response.body.kind === "buffered"
      ? { responseBody: failure.response.body.bytes }
      : {}),
    error: failureCode(failure),
  });
}

function failureCode(failure: StepFailure): string {
  switch (failure.kind) {
    case "response":
      return failure.error;
    case "network-error":
      return "network_error";
    case "timeout":
      return "timeout";
    case "refused":
      return failure.reason;
  }
}
