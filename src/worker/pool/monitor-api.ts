/**
 * @module
 * The contract between the Worker and a provider's `ProviderMonitor` Durable Object (RPC): the
 * shared view of the provider's pool of keys (usage, conditions, this minute's counts) and its
 * models' probe history.
 */

import type { ModelRecord, ProbeResult } from "../health/model-health.ts";
import type { ProbeSettings } from "../health/model-health-book.ts";
import type { KeyReport, KeySnapshot } from "./key-usage.ts";

export interface ProviderMonitorApi {
  /** Adds an isolate's reports; answers the merged view of every key. */
  report(reports: readonly KeyReport[]): Promise<KeySnapshot[]>;
  /** The merged view of every key. */
  keys(): Promise<KeySnapshot[]>;
  /** Records a health probe of one model; answers its new record. */
  recordProbe(probe: ProbeResult, settings: ProbeSettings): Promise<ModelRecord>;
  /** Every probed model's latest record. */
  models(): Promise<ModelRecord[]>;
}
