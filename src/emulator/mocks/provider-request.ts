/**
 * @module
 * Answers one request to a mock provider, in this order: route (404/405), key (401), required
 * headers and body (400), then the fault schedule, then the canonical answer. Every request is
 * logged as one attempt.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { isRecord, parseJson } from "../../providers/json.ts";
import { type AnswerPlan, answerNormally, applyFault } from "./apply-fault.ts";
import { buildAnswer } from "./canonical-answer.ts";
import type { MockWireFormat } from "./formats/index.ts";
import type { MockLifecycle } from "./lifecycle.ts";
import type { MockState } from "./mock-state.ts";
import { type Exchange, sendError } from "./respond.ts";

/** Request bodies above this size get a 413. */
export const maxBodyBytes = 4 * 1024 * 1024;

/** Everything a provider's server shares between its requests. */
export interface ProviderServerContext {
  readonly provider: string;
  readonly format: MockWireFormat;
  readonly state: MockState;
  readonly lifecycle: MockLifecycle;
}

const authMessages = {
  missing: "Missing API key: send the provider's auth header with a key.",
  wrong: "Invalid API key: the key is not accepted by this provider.",
  revoked: "This API key has been revoked; rotate to a new key.",
} as const;

/** Reads the whole body, or `undefined` when it is too large (the rest is discarded). */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBodyBytes) tooLarge = true;
    if (!tooLarge) chunks.push(buffer);
  }
  return tooLarge ? undefined : Buffer.concat(chunks).toString("utf8");
}

/** The path of a request URL without its query, percent-decoded when possible. */
export function pathOf(url: string): string {
  const query = url.indexOf("?");
  const raw = query === -1 ? url : url.slice(0, query);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Answers one provider request. Never throws; a failure to read the request ends the socket. */
export async function handleProviderRequest(
  context: ProviderServerContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { provider, format, state } = context;
  const path = pathOf(request.url ?? "/");
  const attempt = state.openAttempt(provider, path);
  const exchange: Exchange = {
    response,
    format,
    lifecycle: context.lifecycle,
    attempt,
    now: state.now,
  };
  let text: string | undefined;
  try {
    text = await readBody(request);
  } catch {
    response.destroy();
    return;
  }
  const route = format.matchRoute(path);
  attempt.model = route?.model ?? null;
  attempt.auth = state.checkKey(provider, format.readKey(request.headers));
  if (route === undefined) {
    sendError(exchange, "not_found", 404, `No ${provider} endpoint at ${path}.`);
    return;
  }
  if (request.method !== "POST") {
    sendError(exchange, "method_not_allowed", 405, `Use POST for ${path}.`);
    return;
  }
  if (text === undefined) {
    sendError(exchange, "too_large", 413, `The request body is larger than ${maxBodyBytes} bytes.`);
    return;
  }
  if (attempt.auth !== "valid") {
    sendError(exchange, "unauthorized", 401, authMessages[attempt.auth]);
    return;
  }
  const headerProblem = format.checkHeaders?.(request.headers);
  if (headerProblem !== undefined) {
    sendError(exchange, "bad_request", 400, headerProblem);
    return;
  }
  const parsed = parseJson(text);
  if (!parsed.ok || !isRecord(parsed.value)) {
    sendError(exchange, "bad_request", 400, "The request body is not a JSON object.");
    return;
  }
  const chat = format.readRequest(parsed.value, route);
  if ("problem" in chat) {
    sendError(exchange, "bad_request", 400, chat.problem);
    return;
  }
  attempt.model = chat.model;
  attempt.stream = chat.stream;
  const plan: AnswerPlan = {
    answer: buildAnswer({
      provider,
      model: chat.model,
      id: state.nextId("mock-"),
      createdAt: attempt.receivedAt,
      promptText: chat.promptText,
      ...(chat.maxTokens === undefined ? {} : { maxTokens: chat.maxTokens }),
      ...(chat.prefill !== undefined && format.continuesPrefill ? { prefill: chat.prefill } : {}),
    }),
    stream: chat.stream,
    includeUsage: chat.includeUsage,
  };
  const rule = state.pickFault({
    provider,
    model: chat.model,
    stream: chat.stream,
    prefill: chat.prefill !== undefined,
    at: attempt.receivedAt,
  });
  if (rule === undefined) {
    answerNormally(exchange, plan);
    return;
  }
  attempt.fault = rule.kind;
  applyFault(exchange, rule, plan);
}
