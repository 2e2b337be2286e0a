/**
 * @module
 * The default complexity scorer: a **heuristic**, not a classifier. It reads only the request's
 * text — how long it is, how many turns it has, whether it carries code, and a few English words
 * that tend to come with harder asks — and puts the request in one of three tiers. It costs
 * microseconds and calls no model; it is wrong on plenty of requests (a short proof request is
 * hard, a long pasted log is easy). Apps that know better pass their own scorer, or set `tier` in
 * the call's metadata themselves.
 *
 * Points: code block +2; over 6,000 characters +2, over 1,500 +1; more than 6 messages +1; each
 * distinct hard-ask cue +1 (at most 2); two or more questions +1. Tier: 0 simple, 1–2 moderate,
 * 3 or more complex.
 */
import type { ChatRequest } from "../providers/types.ts";
import type { Scorer } from "./policy-call.ts";

export type ComplexityTier = "simple" | "moderate" | "complex";

const hardAskCues = [
  /\bstep[- ]by[- ]step\b/i,
  /\bprove\b|\bproof\b|\bderive\b/i,
  /\banaly[sz]e\b|\banalysis\b/i,
  /\barchitect(ure)?\b|\bdesign\b/i,
  /\btrade-?offs?\b|\bcompare\b/i,
  /\bdebug\b|\boptimi[sz]e\b|\brefactor\b/i,
];

/**
 * The tier of a request by the heuristic above.
 * @example complexityTier({ messages: [{ role: "user", content: "Hi" }] }) // "simple"
 */
export function complexityTier(request: Pick<ChatRequest, "messages">): ComplexityTier {
  const text = request.messages.map((message) => message.content).join("\n");
  let points = 0;
  if (text.includes("```")) points += 2;
  if (text.length > 6_000) points += 2;
  else if (text.length > 1_500) points += 1;
  if (request.messages.length > 6) points += 1;
  points += Math.min(2, hardAskCues.filter((cue) => cue.test(text)).length);
  if ((text.match(/\?/g) ?? []).length >= 2) points += 1;
  if (points >= 3) return "complex";
  return points >= 1 ? "moderate" : "simple";
}

/** The default scorer: `{ tier }` by {@link complexityTier} (a heuristic; see the module doc). */
export const complexityScorer: Scorer = (request) => ({ tier: complexityTier(request) });
