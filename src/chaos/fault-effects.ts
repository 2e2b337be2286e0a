/**
 * @module
 * What each fault kind does to one attempt of a call that goes client → Worker → emulator → mock
 * provider, as the campaign's timeouts set it up (a slow first byte stays under the step timeout,
 * a stalled stream outlasts the client's idle timeout). This is what the theoretical availability
 * counts as a failure, and it is what the quick campaign test observes on the real system:
 *
 * - `fails`: the step fails before answering (an error status, a reset, no answer within the step
 *   timeout, or a 200 whose body cannot be read); the gateway retries and falls back, or the
 *   client moves on to the next steps.
 * - `breaks`: a streamed answer fails after its first byte (cut, stalled, corrupted, without its
 *   end marker or finish, an error event, or a 200 that is not a stream). The gateway has already
 *   answered, so only the client can save the call: it goes on with the steps after the one that
 *   broke (a `restart` event tells the caller to drop the text shown).
 * - `refuses`: a definitive 400 (context length, content filter); the chain ends, and the call is
 *   answered (the request, not the service, is at fault), though not a success.
 * - `slows`: the answer comes late but whole.
 * - `none`: the kind does not apply to this kind of attempt (a missing end marker on a plain call,
 *   a refused prefill on an attempt that sends none).
 */
import type { FaultKind } from "../emulator/mocks/index.ts";

export type FaultEffect = "fails" | "breaks" | "refuses" | "slows" | "none";

/** The effect of each kind on a plain (`chat`) attempt and on a streamed one. */
export const faultEffects: Readonly<
  Record<FaultKind, { readonly plain: FaultEffect; readonly stream: FaultEffect }>
> = {
  "rate-limit": { plain: "fails", stream: "fails" },
  "rate-limit-no-retry-after": { plain: "fails", stream: "fails" },
  "server-error-once": { plain: "fails", stream: "fails" },
  unavailable: { plain: "fails", stream: "fails" },
  overloaded: { plain: "fails", stream: "fails" },
  "connection-reset": { plain: "fails", stream: "fails" },
  "no-response": { plain: "fails", stream: "fails" },
  "slow-first-byte": { plain: "slows", stream: "slows" },
  // A plain answer is read whole by the gateway, so a cut or a bad body fails the step.
  "stream-cut": { plain: "fails", stream: "breaks" },
  // A plain answer stalls for the rule's delay, then completes.
  "stream-stall": { plain: "slows", stream: "breaks" },
  "malformed-chunk": { plain: "fails", stream: "breaks" },
  "missing-done": { plain: "none", stream: "breaks" },
  "stream-error": { plain: "none", stream: "breaks" },
  "stream-unfinished": { plain: "none", stream: "breaks" },
  "prefill-refused": { plain: "none", stream: "none" },
  "context-length": { plain: "refuses", stream: "refuses" },
  "content-filter": { plain: "refuses", stream: "refuses" },
  "empty-body": { plain: "fails", stream: "breaks" },
  "invalid-body": { plain: "fails", stream: "breaks" },
  down: { plain: "fails", stream: "fails" },
  // Guardrails outcomes are the gateway's answer, which ends the request.
  "guardrail-prompt-blocked": { plain: "refuses", stream: "refuses" },
  "guardrail-response-blocked": { plain: "refuses", stream: "refuses" },
  "guardrail-no-credits": { plain: "refuses", stream: "refuses" },
  "guardrail-unavailable": { plain: "refuses", stream: "refuses" },
};

/** The effect of `kind` on an attempt; `none` for a healthy attempt. */
export function effectOf(kind: FaultKind | null, stream: boolean): FaultEffect {
  if (kind === null) return "none";
  const effects = faultEffects[kind];
  return stream ? effects.stream : effects.plain;
}
