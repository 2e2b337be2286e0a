/**
 * @module
 * Guardrails outcomes as faults the gateway applies (fault kinds `guardrail-*` in a fault
 * schedule), with Cloudflare's statuses and codes (features/guardrails/set-up-guardrail.mdx,
 * "Error handling and blocked requests"; changelog 2026-09-17):
 *
 * | Result                     | Provider-specific endpoints | `/run` API     |
 * | Prompt blocked             | 424 / 2016                  | 422 / 2017     |
 * | Response blocked           | 424 / 2017                  | 422 / 2017     |
 * | Scanner needs more credits | 402 / 2021                  | 402 / 2021     |
 * | Scanner unavailable        | 503 / 7013                  | 503 / 7013     |
 *
 * The prompt is checked before the provider is called (blocked prompt, scanner credits, scanner
 * unavailable); the response after the provider answered. Every other endpoint answers as the
 * provider-specific ones do; an outcome ends the request (the emulator's choices, in
 * docs/emulator.md).
 */

import { type GatewayErrorResponse, gatewayError, gatewayErrorCodes } from "../errors.ts";
import type { FaultKind, FaultRule } from "../mocks/index.ts";

/** Kinds checked on the prompt, before the provider is called. */
export const promptPhaseKinds: ReadonlySet<FaultKind> = new Set<FaultKind>([
  "guardrail-prompt-blocked",
  "guardrail-no-credits",
  "guardrail-unavailable",
]);

/** Kinds checked on the provider's answer. */
export const responsePhaseKinds: ReadonlySet<FaultKind> = new Set<FaultKind>([
  "guardrail-response-blocked",
]);

/** The gateway's answer for a Guardrails outcome; `runApi` for the REST API's `/ai/run`. */
export function guardrailError(rule: FaultRule, runApi: boolean): GatewayErrorResponse {
  const tag = ` [mock fault: ${rule.kind}]`;
  switch (rule.kind) {
    case "guardrail-prompt-blocked":
      return runApi
        ? gatewayError(
            422,
            gatewayErrorCodes.responseBlocked,
            `Content blocked by Guardrails${tag}`,
          )
        : gatewayError(424, gatewayErrorCodes.promptBlocked, `Prompt blocked by Guardrails${tag}`);
    case "guardrail-response-blocked":
      return gatewayError(
        runApi ? 422 : 424,
        gatewayErrorCodes.responseBlocked,
        `${runApi ? "Content" : "Response"} blocked by Guardrails${tag}`,
      );
    case "guardrail-no-credits":
      return gatewayError(
        402,
        gatewayErrorCodes.insufficientCredits,
        `The Guardrails scanner needs more credits${tag}`,
      );
    default:
      return gatewayError(
        503,
        gatewayErrorCodes.guardrailsUnavailable,
        `The Guardrails scanner is unavailable and a Block rule applies${tag}`,
      );
  }
}
