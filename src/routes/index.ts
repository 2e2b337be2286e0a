/**
 * @module
 * Route compilers and the routing policy, all pure: route → universal request, route (with its
 * policy) → dynamic-routing element graph (with what it cannot express), the policy evaluated for
 * one request's metadata, graph well-formedness, what a config's findings are (routes Cloudflare
 * would not run, retiring models), and the way back from a response to the step that served it.
 */
export { BudgetLedger, type BudgetLedgerOptions } from "./budget-ledger.ts";
export { type ComplexityTier, complexityScorer, complexityTier } from "./complexity.ts";
export { type ConfigFindingOptions, findConfigFindings } from "./config-findings.ts";
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
  type RateElementProperties,
  type RouteElement,
  startElementId,
} from "./elements.ts";
export { fallbackChain, findGraphProblems } from "./graph.ts";
export { type ChainOptions, RouteGraphBuilder } from "./graph-builder.ts";
export { findModelRetirements } from "./model-retirement.ts";
export {
  type BudgetCharge,
  budgetKey,
  chainSteps,
  choosePolicyChain,
  defaultChainName,
  type NamedChain,
  type PolicyDecision,
  type PolicyInput,
  pickSplit,
  routeChains,
  splitEntries,
} from "./policy.ts";
export {
  chargeBudget,
  type PolicyCall,
  type PolicyCallInput,
  planPolicyCall,
  type Scorer,
} from "./policy-call.ts";
export { chainEntryId, compilePolicyRoute, ruleElementIds } from "./policy-compile.ts";
export {
  matchesWhen,
  type RequestMetadata,
  whenConditions,
  whenKeys,
} from "./policy-conditions.ts";
export { describeBudget, describeRule, describeWhen } from "./policy-text.ts";
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
  universalStep,
} from "./universal.ts";
