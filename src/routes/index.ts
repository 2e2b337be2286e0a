/**
 * @module
 * Route compilers, all pure: route → universal request, route → dynamic-routing element graph,
 * graph well-formedness, and the way back from a response to the step that served it.
 */
export {
  compileDynamicRoute,
  dynamicModelName,
  type ElementOutput,
  type ElementType,
  endElementId,
  type ModelElementProperties,
  modelElementId,
  type RouteElement,
  startElementId,
} from "./dynamic.ts";
export { fallbackChain, findGraphProblems } from "./graph.ts";
export {
  resolveServedStep,
  type ServedStep,
  type ServedStepHeaders,
  servedStepHeaders,
} from "./served-step.ts";
export {
  type CompileUniversalOptions,
  compileStep,
  compileUniversalRequest,
  type KeyLookup,
  type UniversalStep,
  type UniversalStepConfig,
} from "./universal.ts";
