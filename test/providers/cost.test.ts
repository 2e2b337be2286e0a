import { describe, expect, it } from "vitest";
import { answerCost, stepNamedBy } from "../../src/providers/cost.ts";
import { computeCost } from "../../src/providers/index.ts";

const prices = {
  "openai/gpt-4o-mini": { input: 0.15, output: 0.6 },
  "anthropic/claude-sonnet-4-5": { input: 3, output: 15 },
  "workers-ai/@cf/meta/llama-3.1-8b-instruct": { input: 0.282, output: 0.827 },
};

describe("computeCost", () => {
  it("prices input and output tokens per million", () => {
    expect(
      computeCost(prices, "openai", "gpt-4o-mini", { tokensIn: 1_000_000, tokensOut: 0 }),
    ).toBe(0.15);
    expect(
      computeCost(prices, "openai", "gpt-4o-mini", { tokensIn: 1000, tokensOut: 500 }),
    ).toBeCloseTo(0.00045, 12);
    expect(
      computeCost(prices, "workers-ai", "@cf/meta/llama-3.1-8b-instruct", {
        tokensIn: 42,
        tokensOut: 12,
      }),
    ).toBeCloseTo((42 * 0.282 + 12 * 0.827) / 1_000_000, 15);
  });

  it("is zero for zero tokens", () => {
    expect(
      computeCost(prices, "anthropic", "claude-sonnet-4-5", { tokensIn: 0, tokensOut: 0 }),
    ).toBe(0);
  });

  it("is undefined when the model has no price", () => {
    expect(
      computeCost(prices, "openai", "gpt-4o", { tokensIn: 10, tokensOut: 10 }),
    ).toBeUndefined();
    expect(
      computeCost(prices, "groq", "gpt-4o-mini", { tokensIn: 10, tokensOut: 10 }),
    ).toBeUndefined();
    expect(
      computeCost({}, "openai", "gpt-4o-mini", { tokensIn: 10, tokensOut: 10 }),
    ).toBeUndefined();
  });

  it("prices a dated snapshot the provider answered with at its alias' price", () => {
    const usage = { tokensIn: 31, tokensOut: 14 };
    expect(computeCost(prices, "anthropic", "claude-sonnet-4-5-20250929", usage)).toBeCloseTo(
      (31 * 3 + 14 * 15) / 1e6,
      15,
    );
    expect(computeCost(prices, "openai", "gpt-4o-mini-2024-07-18", usage)).toBeCloseTo(
      (31 * 0.15 + 14 * 0.6) / 1e6,
      15,
    );
    expect(computeCost(prices, "openai", "gpt-4o-mini-search", usage)).toBeUndefined();
  });

  it("does not read inherited keys as prices", () => {
    expect(computeCost(prices, "constructor", "", { tokensIn: 1, tokensOut: 1 })).toBeUndefined();
    expect(computeCost(prices, "__proto__", "x", { tokensIn: 1, tokensOut: 1 })).toBeUndefined();
  });
});

describe("answerCost and stepNamedBy (a call's cost and a dynamic answer's step)", () => {
  const usage = { tokensIn: 1_000_000, tokensOut: 0 };
  it("prices by the step's model, else by the model the answer names, else null", () => {
    const step = { provider: "anthropic", model: "claude-sonnet-4-5" };
    expect(answerCost(prices, step, "claude-sonnet-4-5-20250929", usage)).toBe(3);
    expect(answerCost(prices, { provider: "openai", model: "alias" }, "gpt-4o-mini", usage)).toBe(
      0.15,
    );
    expect(
      answerCost(prices, { provider: "openai", model: "alias" }, "unpriced", usage),
    ).toBeNull();
  });

  it("finds the one step a body's model names, plain, prefixed or dated; none when ambiguous", () => {
    const steps = [
      { provider: "openai", model: "gpt-4o-mini" },
      { provider: "anthropic", model: "claude-sonnet-4-5" },
    ];
    expect(stepNamedBy(steps, "openai/gpt-4o-mini")).toBe(steps[0]);
    expect(stepNamedBy(steps, "claude-sonnet-4-5-20250929")).toBe(steps[1]);
    expect(stepNamedBy(steps, "gpt-4o")).toBeUndefined();
    expect(
      stepNamedBy([...steps, { provider: "groq", model: "gpt-4o-mini" }], "gpt-4o-mini"),
    ).toBeUndefined();
  });
});
