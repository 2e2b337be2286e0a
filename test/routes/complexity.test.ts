/**
 * The default complexity scorer is a documented heuristic: these pin the tiers it gives the
 * kinds of request its module doc names, so a change to the points is a deliberate one.
 */
import { describe, expect, it } from "vitest";
import { complexityTier } from "../../src/routes/index.ts";

const ask = (...contents: string[]) => ({
  messages: contents.map((content) => ({ role: "user" as const, content })),
});

describe("complexityTier", () => {
  it.each([
    ["a greeting", ask("Hi! What time zone is Lisbon in?"), "simple"],
    ["a short lookup", ask("Translate 'good morning' to French."), "simple"],
    ["two questions", ask("What is a mutex? And when do I need one?"), "moderate"],
    ["a hard-ask cue", ask("Compare REST and gRPC for internal services."), "moderate"],
    ["a long text", ask(`Summarise this: ${"lorem ipsum ".repeat(150)}`), "moderate"],
    [
      "code with a debugging ask",
      ask("Debug this:\n```ts\nconst x: number = '1';\n```\nWhy does it fail?"),
      "complex",
    ],
    [
      "a long design ask with trade-offs",
      ask(
        "Design the architecture of a multi-region queue and analyse the trade-offs step by step. " +
          "context ".repeat(900),
      ),
      "complex",
    ],
    ["a long conversation", ask(...Array.from({ length: 7 }, () => "ok")), "moderate"],
  ])("%s is %s", (_name, request, tier) => {
    expect(complexityTier(request)).toBe(tier);
  });
});
