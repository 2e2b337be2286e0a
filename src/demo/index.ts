/**
 * @module
 * The whole system on one machine: `runDemo` (what `npm start` runs), the local system it starts,
 * and demo scenarios.
 */

export {
  type EventLoopLag,
  type EventLoopWatch,
  type StarvationVerdict,
  starvationNote,
  starvationVerdict,
  watchEventLoop,
} from "./event-loop-lag.ts";
export {
  callsPerWindow,
  explainFailures,
  type FailureCounts,
  rateLimitWarning,
} from "./explain.ts";
export { type LocalSystem, startLocalSystem } from "./local-system.ts";
export {
  buildWorkerBundle,
  type RunningWorker,
  startWorker,
  type WorkerBindings,
} from "./local-worker.ts";
export { capTimeouts, type DemoOptions, type DemoResult, runDemo } from "./run-demo.ts";
export {
  type DemoScenario,
  defaultScenario,
  loadScenario,
  phaseSizes,
  scenarioSchema,
} from "./scenario.ts";
