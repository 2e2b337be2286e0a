/**
 * @module
 * `RouteGraphBuilder`: assembles a dynamic-routing element graph from pieces — fallback chains of
 * model elements, and the conditional, percentage and rate elements a policy leads into them with. Every graph has one `start` and one shared `end`; element ids are derived from
 * positions and names only, so compiling the same route twice gives byte-identical graphs (and
 * never replaces a deployed route).
 */
import type { StepConfig } from "../config/schema.ts";
import { modelProperties } from "./dynamic-settings.ts";
import {
  type ElementOutput,
  endElementId,
  modelElementId,
  type RateElementProperties,
  type RouteElement,
  startElementId,
} from "./elements.ts";

export interface ChainOptions {
  /** Names the chain in its element ids (`<name>-model-0`); one unnamed chain per graph. */
  readonly name?: string;
  /** Where the last model's `fallback` leads. Default: the end (the last failure is returned). */
  readonly exhausted?: string;
}

export class RouteGraphBuilder {
  readonly #elements = new Map<string, RouteElement>();

  /**
   * Adds an element (any type but start and end, which `build` adds).
   * @throws {RangeError} for an id already used: ids identify elements in the deployed graph.
   */
  add(element: RouteElement): string {
    if (
      this.#elements.has(element.id) ||
      element.id === startElementId ||
      element.id === endElementId
    ) {
      throw new RangeError(`element id "${element.id}" is used twice in one route graph`);
    }
    this.#elements.set(element.id, element);
    return element.id;
  }

  /**
   * A fallback chain: one model element per step, in order. A model that answers leads to the
   * end; one that fails (after its retries) leads to the next, the last one to `exhausted`.
   * @returns the id of the chain's first element.
   */
  chain(steps: readonly StepConfig[], options: ChainOptions = {}): string {
    if (steps.length === 0) throw new RangeError("a fallback chain needs at least one step");
    const ids = steps.map((_, index) => modelElementId(index, options.name));
    steps.forEach((step, index) => {
      this.add({
        id: ids[index]!,
        type: "model",
        properties: { ...modelProperties(step) },
        outputs: {
          success: output(endElementId),
          fallback: output(ids[index + 1] ?? options.exhausted ?? endElementId),
        },
      });
    });
    return ids[0]!;
  }

  /** A conditional element: `conditions` true → `whenTrue`, else → `whenFalse`. */
  conditional(
    id: string,
    conditions: Record<string, unknown>,
    whenTrue: string,
    whenFalse: string,
  ): string {
    return this.add({
      id,
      type: "conditional",
      properties: { conditions },
      outputs: { true: output(whenTrue), false: output(whenFalse) },
    });
  }

  /** A rate (budget) element: within the limit → `success`, over it → `fallback`. */
  rate(id: string, properties: RateElementProperties, success: string, fallback: string): string {
    return this.add({
      id,
      type: "rate",
      properties: { ...properties },
      outputs: { success: output(success), fallback: output(fallback) },
    });
  }

  /** A percentage element: `[["10%", target], …, ["else", target]]`, in that order. */
  percentage(id: string, outputs: readonly (readonly [string, string])[]): string {
    return this.add({
      id,
      type: "percentage",
      outputs: Object.fromEntries(outputs.map(([port, target]) => [port, output(target)])),
    });
  }

  /** The graph: `start` → `entry`, every added element in order, then `end`. */
  build(entry: string): RouteElement[] {
    return [
      { id: startElementId, type: "start", outputs: { next: output(entry) } },
      ...this.#elements.values(),
      { id: endElementId, type: "end", outputs: {} },
    ];
  }
}

function output(elementId: string): ElementOutput {
  return { elementId };
}
