import { describe, expect, it } from "vitest";
import { findGraphProblems, type RouteElement } from "../../src/routes/index.ts";

const model = (id: string, success: string, fallback?: string): RouteElement => ({
  id,
  type: "model",
  properties: { provider: "openai", model: id },
  outputs: fallback
    ? { success: { elementId: success }, fallback: { elementId: fallback } }
    : { success: { elementId: success } },
});
const start = (next: string): RouteElement => ({
  id: "start",
  type: "start",
  outputs: { next: { elementId: next } },
});
const end: RouteElement = { id: "end", type: "end", outputs: {} };

describe("findGraphProblems", () => {
  it("accepts start → model → end", () => {
    expect(findGraphProblems([start("a"), model("a", "end"), end])).toEqual([]);
  });

  it("needs exactly one start", () => {
    expect(findGraphProblems([model("a", "end"), end])).toEqual([
      "a route needs exactly one start element, found 0",
    ]);
    expect(
      findGraphProblems([start("a"), { ...start("a"), id: "start-2" }, model("a", "end"), end]),
    ).toContain("a route needs exactly one start element, found 2");
  });

  it("finds outputs pointing at missing elements", () => {
    expect(findGraphProblems([start("a"), model("a", "end", "b"), end])).toEqual([
      'element "a" output "fallback" points at missing element "b"',
    ]);
  });

  it("finds unreachable elements", () => {
    expect(findGraphProblems([start("a"), model("a", "end"), model("b", "end"), end])).toEqual([
      'element "b" is not reachable from the start',
    ]);
  });

  it("finds cycles, since every path must end", () => {
    const problems = findGraphProblems([
      start("a"),
      model("a", "end", "b"),
      model("b", "end", "a"),
      end,
    ]);
    expect(problems).toEqual([expect.stringMatching(/^cycle: start → a → b → a/)]);
  });

  it("finds missing required outputs and unknown types", () => {
    const problems = findGraphProblems([
      start("a"),
      { id: "a", type: "conditional", outputs: { true: { elementId: "end" } } },
      { id: "x", type: "teleport" as RouteElement["type"], outputs: {} },
      end,
    ]);
    expect(problems).toContain('element "a" (conditional) has no "false" output');
    expect(problems).toContain('element "x" has unknown type "teleport"');
  });

  it("finds what each element type needs in its properties and ports (aig-spec §6)", () => {
    const to = (elementId: string) => ({ elementId });
    const problems = findGraphProblems([
      start("rate"),
      {
        id: "rate",
        type: "rate",
        properties: { limit: -1, limitType: "tokens" },
        outputs: { success: to("split"), fallback: to("cond") },
      },
      {
        id: "split",
        type: "percentage",
        outputs: { "60%": to("a"), "30%": to("a"), half: to("a") },
      },
      {
        id: "cond",
        type: "conditional",
        properties: { conditions: "{not json" },
        outputs: { true: to("a"), false: to("nameless") },
      },
      {
        id: "nameless",
        type: "model",
        properties: { model: "x" },
        outputs: { success: to("end") },
      },
      model("a", "end"),
      end,
    ]);
    expect(problems).toEqual([
      'element "rate" (rate) needs a key, e.g. "metadata.user_id"',
      'element "rate" (rate) needs a limit of 0 or more',
      'element "rate" (rate) needs a window in seconds above 0',
      'element "rate" (rate) needs limitType "count" or "cost"',
      'element "split" (percentage) has output "half": outputs are percentages such as "10%", or else',
      'element "split" (percentage) sends only 90 % of requests: add an else output for the rest, or make the percentages add up to 100',
      'element "cond" (conditional) has conditions that are not valid JSON',
      'element "nameless" (model) needs a provider and a model',
    ]);
  });

  it("takes up to five percentages with an else, and the docs' rate_limit spelling", () => {
    const to = (elementId: string) => ({ elementId });
    const shares = ["1%", "2%", "3%", "4%", "5%"];
    const valid = [
      start("limit"),
      {
        id: "limit",
        type: "rate_limit",
        properties: { key: "metadata.user", limit: 10, limitType: "count", interval: 60 },
        outputs: { success: to("split") },
      },
      {
        id: "split",
        type: "percentage",
        outputs: { ...Object.fromEntries(shares.map((share) => [share, to("a")])), else: to("a") },
      },
      model("a", "end"),
      end,
    ] as RouteElement[];
    expect(findGraphProblems(valid)).toEqual([]);
    const six = valid.map((element) =>
      element.id === "split"
        ? { ...element, outputs: { ...element.outputs, "6%": to("a") } }
        : element,
    );
    expect(findGraphProblems(six)).toEqual([
      'element "split" (percentage) has 6 percentage outputs; at most 5 (plus else)',
    ]);
  });
});
