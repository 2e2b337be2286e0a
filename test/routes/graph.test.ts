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
});
