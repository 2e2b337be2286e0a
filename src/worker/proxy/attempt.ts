/**
 * @module
 * One attempt of a proxied call: the request sent upstream with one key of a pool, held to the
 * call's deadline (`call-deadline.ts`). The attempt carries what remains of the call's time as its
 * own `cf-aig-request-timeout`, and is not sent at all when nothing remains. When the time runs
 * out before the answer has been told apart (its headers, and for a 401, 403 or 429 the head of
 * its body that says whose refusal it is), the request is aborted, an answer that still comes is
 * dropped unread, and the attempt ends `timed-out`.
 */
import type { HandlerContext } from "../handler-context.ts";
import { type CallDeadline, remainingMs, requestTimeoutHeader } from "./call-deadline.ts";
import { type ClassifiedAnswer, classifyAnswer } from "./gateway-refusal.ts";

/** How an attempt ended. */
export type AttemptResult =
  | ({ readonly kind: "answered" } & ClassifiedAnswer)
  /** The gateway could not be reached, or its answer broke off before it was told apart. */
  | { readonly kind: "unreachable" }
  /** The call's time ran out; `sent`: the request had gone upstream. */
  | { readonly kind: "timed-out"; readonly sent: boolean };

/** Sends one attempt and waits for its answer, at most until the call's deadline. */
export async function sendAttempt(
  target: string,
  init: RequestInit,
  deadline: CallDeadline | null,
  context: HandlerContext,
): Promise<AttemptResult> {
  if (deadline === null) return settle(send(target, init, context));
  const left = remainingMs(deadline, context.now());
  if (left === 0) return { kind: "timed-out", sent: false };
  const headers = new Headers(init.headers);
  headers.set(requestTimeoutHeader, String(left));
  const abort = new AbortController();
  let cancelTimer = () => {};
  const expired = new Promise<"expired">((resolve) => {
    cancelTimer = context.setTimer(left, () => resolve("expired"));
  });
  const answered = send(target, { ...init, headers, signal: abort.signal }, context);
  try {
    const first = await Promise.race([settle(answered), expired]);
    if (first !== "expired") return first;
    abort.abort();
    answered.then(
      (late) => late.response.body?.cancel().catch(() => undefined),
      () => undefined,
    );
    return { kind: "timed-out", sent: true };
  } finally {
    cancelTimer();
  }
}

async function send(
  target: string,
  init: RequestInit,
  context: HandlerContext,
): Promise<ClassifiedAnswer> {
  const request = { ...init, redirect: "manual" } as const;
  let response: Response;
  try {
    response = await context.fetch(target, request);
  } catch (error) {
    // workerd keeps its connections to the gateway open between calls, and one that an answer
    // left unusable (HTTP trailers after a chunked body stay unread on it) fails the next request
    // sent on it; the request goes once more, on a new connection, when its body can be sent
    // again and the call was not aborted. The gateway may have seen the first one too.
    if (init.signal?.aborted === true || !replayable(init.body)) throw error;
    response = await context.fetch(target, request);
  }
  return classifyAnswer(response);
}

/** A body fetch can send twice: none, text or bytes (a stream goes once). */
function replayable(body: RequestInit["body"]): boolean {
  return (
    body === undefined ||
    body === null ||
    typeof body === "string" ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body)
  );
}

async function settle(answer: Promise<ClassifiedAnswer>): Promise<AttemptResult> {
  try {
    return { kind: "answered", ...(await answer) };
  } catch {
    return { kind: "unreachable" };
  }
}
