/**
 * @module
 * A call's gateway settings (`cacheTtl`, `metadata`, `retries`...) as `cf-aig-*` request headers,
 * checked against the gateway's limits first, so a bad value fails with a clear message instead
 * of a gateway 400 (or, worse, being silently ignored: the gateway drops metadata entries past the
 * fifth); with them, the checks of a call's other options and of its route. `call.ts` comes here
 * only for a call that sets any of them, or that is wrong.
 */

import { choiceProblem, choices, throwProblems, wholeNumberProblem } from "./call-errors.ts";
import type { ClientState } from "./call-state.ts";
import { UnknownRouteError } from "./route-errors.ts";
import type { ChatOptions } from "./types.ts";

/**
 * Checks what a call cannot go on without: a known route and well-formed messages (`call.ts`
 * tells whether they are, `messagesValid`). Bad messages are reported with every other problem
 * of the call's options at once.
 * @throws UnknownRouteError, or InvalidOptionsError naming each problem.
 */
export function checkCall(state: ClientState, options: ChatOptions, messagesValid: boolean): void {
  if (!state.routes.has(options.route)) {
    throw new UnknownRouteError({
      route: String(options.route),
      knownRoutes: [...state.routes.keys()],
    });
  }
  if (!messagesValid) {
    settingHeaders(options, options.route, [
      "messages must be a non-empty array of { role: system, user or assistant, content: string }",
    ]);
  }
}

/**
 * The `cf-aig-*` headers of a call's settings, after checking them and the call's other options
 * (`maxAttempts`, `deadlineMs`, `mode`, `onStreamBreak`): each problem joins `problems` (those
 * found before), naming the option and its allowed range, and all are thrown at once. The route's name joins `cf-aig-metadata` as `route`
 * (so the gateway's own logs say which route a call used) unless the caller's metadata has
 * `route` or uses all five entries.
 * @throws InvalidOptionsError naming each problem.
 */
export function settingHeaders(
  settings: ChatOptions,
  route: string,
  problems: string[] = [],
): Record<string, string> {
  const { cacheTtl, metadata = {}, retries = {}, requestTimeoutMs, cacheKey } = settings;
  const entries = Object.entries(metadata);
  wholeNumberProblem(problems, "maxAttempts", settings.maxAttempts, 1);
  wholeNumberProblem(problems, "deadlineMs", settings.deadlineMs, 1);
  choiceProblem(problems, "mode", settings.mode, choices.mode);
  choiceProblem(problems, "onStreamBreak", settings.onStreamBreak, choices.onStreamBreak);
  if (cacheTtl !== 0)
    wholeNumberProblem(
      problems,
      "cacheTtl (seconds; 0 turns the cache off)",
      cacheTtl,
      60,
      2_592_000,
    );
  wholeNumberProblem(problems, "requestTimeoutMs", requestTimeoutMs, 1);
  wholeNumberProblem(problems, "retries.maxAttempts", retries.maxAttempts, 1, 5);
  wholeNumberProblem(problems, "retries.delayMs", retries.delayMs, 0, 5_000);
  if (entries.length > 5)
    problems.push(`metadata has ${entries.length} entries; the gateway keeps only 5`);
  for (const [key, value] of entries) {
    if (!/^(string|number|boolean)$/.test(typeof value))
      problems.push(`metadata.${key} must be a string, number or boolean`);
  }
  for (const [name, value] of Object.entries({ eventId: settings.eventId, cacheKey })) {
    if (value !== undefined && !/^[^\r\n]+$/.test(value))
      problems.push(`${name} must be non-empty and free of line breaks`);
  }
  throwProblems("Invalid call options", problems);
  const headers: Record<string, string> = {
    "cf-aig-metadata": JSON.stringify(
      "route" in metadata || entries.length >= 5 ? metadata : { route, ...metadata },
    ),
  };
  const settingHeaders = {
    "request-timeout": requestTimeoutMs,
    "cache-ttl": cacheTtl,
    "skip-cache": settings.skipCache,
    "cache-key": cacheKey,
    "collect-log": settings.collectLog,
    "max-attempts": retries.maxAttempts,
    "retry-delay": retries.delayMs,
    backoff: retries.backoff,
  };
  for (const [name, value] of Object.entries(settingHeaders)) {
    if (value !== undefined) headers[`cf-aig-${name}`] = String(value);
  }
  return headers;
}
