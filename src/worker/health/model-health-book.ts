/**
 * @module
 * `ModelHealthBook`: the probe history of one provider's models, kept in its `ProviderMonitor`
 * Durable Object's storage (`model:{model}`), so each probe is judged against the model's own
 * past (its usual latency, whether it is recovering) and nothing is derived from KV.
 */
import type { LedgerStorage } from "../ledger/ledger-storage.ts";
import { type ModelRecord, nextRecord, type ProbeResult } from "./model-health.ts";

/** The settings a probe is judged with. */
export interface ProbeSettings {
  readonly slowMs: number;
  readonly probationSeconds: number;
}

const prefix = "model:";

export class ModelHealthBook {
  readonly #storage: Pick<LedgerStorage, "get" | "put" | "list">;

  constructor(storage: Pick<LedgerStorage, "get" | "put" | "list">) {
    this.#storage = storage;
  }

  /** Records a probe and answers the model's new record. */
  async record(probe: ProbeResult, settings: ProbeSettings): Promise<ModelRecord> {
    const key = `${prefix}${probe.model}`;
    const previous = await this.#storage.get<ModelRecord>(key);
    const record = nextRecord(previous, probe, settings);
    await this.#storage.put({ [key]: record });
    return record;
  }

  /** Every model's latest record. */
  async all(): Promise<ModelRecord[]> {
    return [...(await this.#storage.list<ModelRecord>({ prefix })).values()];
  }
}
