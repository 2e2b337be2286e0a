/**
 * @module
 * Everything a call settles before its first attempt: the route, the normalised request, the
 * headers, the deadline and attempt budget, its event tracker and its cancellation scope.
 * Bad options throw here, before anything is sent.
 */

import type { RouteConfig } from "../config/schema.ts";
import type { ChatRequest } from "../providers/types.ts";
import { planPolicyCall } from "../routes/policy-call.ts";
import { CallTracker } from "./call-tracker.ts";
import { type ClientContext, clientDefaults } from "./context.ts";
import { InvalidOptionsError } from "./errors.ts";
import { gatewayHeaders } from "./headers.ts";
import { routeForCall } from "./policy-route.ts";
import { type CallScope, createCallScope } from "./scope.ts";
import type { ChatOptions, RouteMode } from "./types.ts";

/** A call, ready for its first attempt. */
export interface PreparedCall {
  readonly options: ChatOptions;
  readonly route: RouteConfig;
  readonly mode: RouteMode;
  readonly request: ChatRequest;
  readonly headers: Record<string, string>;
  readonly maxAttempts: number;
  readonly scope: CallScope;
  /** Provider → probe token for half-open providers this call probes. */
  readonly probes: Map<string, number>;
}

/** Starts a call's tracker; do this first so that even bad options produce an event. */
export function startTracker(
  context: ClientContext,
  options: ChatOptions,
  streamed: boolean,
): CallTracker {
  const id = options.eventId ?? context.generateId();
  const mode = options.mode ?? context.options.mode ?? "universal";
  return new CallTracker({ context, id, route: String(options.route), mode, streamed });
}

/**
 * Checks the options and prepares the call.
 * @throws UnknownRouteError, InvalidOptionsError
 */
export function prepareCall(
  context: ClientContext,
  options: ChatOptions,
  tracker: CallTracker,
  stream: boolean,
): PreparedCall {
  const configured = context.route(options.route);
  const request = chatRequestOf(options, stream);
  // The route's policy (for a universal call) and the call's metadata: `routes/policy-call.ts`.
  const policy = planPolicyCall({
    route: configured,
    request,
    metadata: options.metadata,
    scorer: context.options.scorer,
    evaluate: (options.mode ?? context.options.mode ?? "universal") === "universal",
    ledger: context.budgetLedger,
    random: context.options.random,
    scope: `${context.gatewayId}/${String(options.route)}`,
    now: context.now(),
  });
  const route = routeForCall(configured, policy.decision?.steps);
  const settings = { ...options, metadata: policy.metadata };
  const headers = gatewayHeaders({
    gatewayToken: context.options.gatewayToken,
    defaultRequestTimeoutMs: context.options.requestTimeoutMs,
    extra: context.options.headers,
    settings,
    eventId: tracker.id,
    route: String(options.route),
  });
  tracker.notePolicy(policy.metadata, policy.decision);
  const maxAttempts =
    options.maxAttempts ?? context.options.maxAttempts ?? clientDefaults.maxAttempts;
  const deadlineMs =
    options.deadlineMs ??
    route.deadlineMs ??
    context.options.deadlineMs ??
    clientDefaults.deadlineMs;
  const problems: string[] = [];
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    problems.push(`maxAttempts must be a whole number of at least 1, got ${maxAttempts}`);
  }
  if (!(Number.isFinite(deadlineMs) && deadlineMs > 0)) {
    problems.push(`deadlineMs must be above 0, got ${deadlineMs}`);
  }
  const mode = options.mode ?? context.options.mode ?? "universal";
  if (mode !== "universal" && mode !== "dynamic") {
    problems.push(`mode must be "universal" or "dynamic", got "${String(mode)}"`);
  }
  if (problems.length > 0) {
    throw new InvalidOptionsError({ message: `Invalid call options: ${problems.join("; ")}.` });
  }
  return {
    options,
    route,
    mode,
    request,
    headers,
    maxAttempts,
    scope: createCallScope({ signal: options.signal, deadlineMs, now: context.now }),
    probes: new Map(),
  };
}

function chatRequestOf(options: ChatOptions, stream: boolean): ChatRequest {
  const messages = options.messages;
  const valid =
    Array.isArray(messages) &&
    messages.length > 0 &&
    messages.every(
      (message) =>
        ["system", "user", "assistant"].includes(message?.role) &&
        typeof message.content === "string",
    );
  if (!valid) {
    throw new InvalidOptionsError({
      message:
        "Invalid call options: messages must be a non-empty array of { role: " +
        '"system" | "user" | "assistant", content: string }.',
    });
  }
  return {
    messages,
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.topP === undefined ? {} : { topP: options.topP }),
    ...(options.stop === undefined ? {} : { stop: options.stop }),
    ...(stream ? { stream: true } : {}),
  };
}
