/**
 * @module
 * The end-to-end tests run the Worker exactly as `stepwise demo` does.
 */
export {
  buildWorkerBundle,
  projectRoot,
  type RunningWorker,
  startWorker,
  type WorkerBindings,
  type WorkerBundle,
} from "../../src/demo/local-worker.ts";
