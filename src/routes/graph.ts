/**
 * @module
 * Well-formedness of a dynamic-routing element graph: exactly one start, outputs that point at
 * existing elements, every element reachable from the start, and every path ending at an end
 * (no cycles, no dead ends), and the properties each element type needs (`element-checks.ts`).
 * Used on compiled routes and on graphs read back from the API.
 */
import { findElementProblems } from "./element-checks.ts";
import type { RouteElement } from "./elements.ts";

/** The outputs each element type must have. `rate` and `model` may omit `fallback`. */
const requiredOutputs: Record<string, readonly string[]> = {
  start: ["next"],
  conditional: ["true", "false"],
  percentage: [],
  rate: ["success"],
  rate_limit: ["success"],
  model: ["success"],
  end: [],
};

/** Every problem with a graph, as sentences; empty when the graph is well formed. */
export function findGraphProblems(elements: readonly RouteElement[]): string[] {
  const problems: string[] = [];
  const byId = new Map<string, RouteElement>();
  for (const element of elements) {
    if (byId.has(element.id)) problems.push(`element id "${element.id}" is used twice`);
    byId.set(element.id, element);
    const required = requiredOutputs[element.type];
    if (required === undefined) {
      problems.push(`element "${element.id}" has unknown type "${element.type}"`);
      continue;
    }
    for (const port of required) {
      if (!element.outputs[port])
        problems.push(`element "${element.id}" (${element.type}) has no "${port}" output`);
    }
    if (element.type === "end" && Object.keys(element.outputs).length > 0) {
      problems.push(`end element "${element.id}" must have no outputs`);
    }
    if (element.type === "percentage" && Object.keys(element.outputs).length === 0) {
      problems.push(`percentage element "${element.id}" has no outputs`);
    } else {
      problems.push(...findElementProblems(element));
    }
    for (const [port, output] of Object.entries(element.outputs)) {
      if (!elements.some((candidate) => candidate.id === output.elementId)) {
        problems.push(
          `element "${element.id}" output "${port}" points at missing element "${output.elementId}"`,
        );
      }
    }
  }
  const starts = elements.filter((element) => element.type === "start");
  if (starts.length !== 1)
    problems.push(`a route needs exactly one start element, found ${starts.length}`);
  if (starts.length !== 1 || problems.length > 0) return problems;

  // Depth-first walk from the start: colours find cycles; the visited set finds unreachable elements.
  const state = new Map<string, "active" | "done">();
  const visit = (id: string, trail: string[]): void => {
    const element = byId.get(id);
    if (!element) return;
    if (state.get(id) === "active") {
      problems.push(`cycle: ${[...trail, id].join(" → ")}; every path must reach an end element`);
      return;
    }
    if (state.get(id) === "done") return;
    state.set(id, "active");
    const targets = Object.values(element.outputs).map((output) => output.elementId);
    if (targets.length === 0 && element.type !== "end") {
      problems.push(
        `element "${id}" (${element.type}) leads nowhere; every path must reach an end element`,
      );
    }
    for (const target of targets) visit(target, [...trail, id]);
    state.set(id, "done");
  };
  visit(starts[0]!.id, []);
  for (const element of elements) {
    if (!state.has(element.id))
      problems.push(`element "${element.id}" is not reachable from the start`);
  }
  return problems;
}

/** The model elements in fallback order: start's target, then each model's `fallback`. */
export function fallbackChain(elements: readonly RouteElement[]): RouteElement[] {
  const byId = new Map(elements.map((element) => [element.id, element]));
  const chain: RouteElement[] = [];
  let current = byId.get(
    elements.find((element) => element.type === "start")?.outputs.next?.elementId ?? "",
  );
  while (current && current.type === "model" && !chain.includes(current)) {
    chain.push(current);
    current = byId.get(current.outputs.fallback?.elementId ?? "");
  }
  return chain;
}
