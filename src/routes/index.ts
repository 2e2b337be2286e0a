/**
 * @module
 * Route compilers, all pure: route → universal request, route → dynamic-routing element graph
 * (with what it cannot express), graph well-formedness, whether a config's dynamic routes would
 * run on Cloudflare, and the way back from a response to the step that served it.
 */
export { findDeployProblems } from "./deploy-checks.ts";
export { compileDynamicRoute, isDynamicRoute } from "./dynamic.ts";
export {
  type DroppedSetting,
  droppedDynamicSettings,
  modelProperties,
  routeSettingsDroppedInDynamicRoutes,
  type StepSettingMapping,
  stepSettingsInDynamicRoutes,
} from "./dynamic-settings.ts";
export {
  dynamicModelName,
  type ElementOutput,
  type ElementType,
  endElementId,
  type ModelElementProperties,
  modelElementId,
  type RouteElement,
  startElementId,
} from "./elements.ts";
export { fallbackChain, findGraphProblems } from "./graph.ts";
export { type ChainOptions, RouteGraphBuilder } from "./graph-builder.ts";
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
