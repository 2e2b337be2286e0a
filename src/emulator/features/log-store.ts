/**
 * @module
 * One gateway's request logs, bounded the way Cloudflare bounds them: at the gateway's log limit
 * (`log_management`), `STOP_INSERTING` drops new records and `DELETE_OLDEST` evicts the oldest.
 * An emulator-wide `capacity` also bounds memory; past it the oldest record always goes. Bodies
 * are kept beside the records, bounded on their own (see `log-bodies.ts`).
 */
import { type LogBodyLimits, LogBodyStore } from "./log-bodies.ts";

/** A log record, with the fields of Cloudflare's `LogListResponse` (snake_case, as on the wire). */
export interface GatewayLogRecord {
  /** ULID, equal to the response's `cf-aig-log-id`. */
  readonly id: string;
  readonly created_at: string;
  readonly provider: string;
  readonly model: string;
  readonly path: string;
  /** Milliseconds from the gateway receiving the request to the end of this step's response. */
  readonly duration: number;
  readonly success: boolean;
  readonly cached: boolean;
  /** Upstream status, or the gateway's own (429, 502, 504); 0 is never used. */
  readonly status_code: number;
  readonly tokens_in: number | null;
  readonly tokens_out: number | null;
  /** USD; absent when the model has no price and no custom cost was sent. */
  readonly cost?: number;
  readonly custom_cost: boolean;
  /** `cf-aig-metadata`, as a JSON string. */
  readonly metadata?: string;
  /** The endpoint family: `universal`, `provider`, `compat` or `dynamic`. */
  readonly request_type: string;
  readonly request_content_type?: string;
  readonly response_content_type?: string;
  /** 0-based step (universal) or model node position (dynamic) that produced this record. */
  readonly step: number;
  readonly request_size: number;
  readonly response_size: number;
  readonly event_id?: string;
  /** `cf-aig-request-id`: shared by every record of one gateway request. */
  readonly request_id: string;
  readonly gateway_id: string;
  /** Attempts made for this step (retries included). */
  readonly attempts: number;
  /** What went wrong, for failed records: `timeout`, `network_error`, `stream_cut`, ... */
  readonly error?: string;
  /** Whether the stored request/response body is whole (absent when no body is stored). */
  readonly request_head_complete?: boolean;
  readonly response_head_complete?: boolean;
  /** Human feedback set with `logs.edit`: -1, 0 or 1. */
  readonly feedback?: number | null;
  /** A score set with `logs.edit`. */
  readonly score?: number | null;
}

export type LogStrategy = "STOP_INSERTING" | "DELETE_OLDEST";

/** The gateway's current log settings (read on every insert, so updates take effect). */
export interface LogLimits {
  readonly limit: number | null;
  readonly strategy: LogStrategy;
}

export class LogStore {
  #records: GatewayLogRecord[] = [];
  #start = 0;
  readonly #limits: () => LogLimits;
  readonly #capacity: number;
  /** The stored request/response bodies, by log id. */
  readonly bodies: LogBodyStore;

  constructor(limits: () => LogLimits, capacity: number, bodyLimits: LogBodyLimits = {}) {
    this.#limits = limits;
    this.#capacity = capacity;
    this.bodies = new LogBodyStore(bodyLimits);
  }

  /** Replaces fields of a record (`logs.edit`); false when there is no such record. */
  update(id: string, changes: Partial<GatewayLogRecord>): GatewayLogRecord | undefined {
    const index = this.#records.findIndex(
      (record, position) => position >= this.#start && record.id === id,
    );
    if (index === -1) return undefined;
    const updated = { ...this.#records[index]!, ...changes, id };
    this.#records[index] = updated;
    return updated;
  }

  /** Adds a record; false when the gateway's limit is reached under `STOP_INSERTING`. */
  add(record: GatewayLogRecord): boolean {
    const { limit, strategy } = this.#limits();
    if (limit !== null && this.size >= limit) {
      if (strategy === "STOP_INSERTING") return false;
      while (this.size >= limit) this.#dropOldest();
    }
    while (this.size >= this.#capacity) this.#dropOldest();
    this.#records.push(record);
    return true;
  }

  /** Every record, oldest first. */
  list(): GatewayLogRecord[] {
    return this.#records.slice(this.#start);
  }

  get(id: string): GatewayLogRecord | undefined {
    return this.list().find((record) => record.id === id);
  }

  /** Removes the records a predicate selects; returns how many went. */
  remove(predicate: (record: GatewayLogRecord) => boolean): number {
    const kept = this.list().filter((record) => {
      if (!predicate(record)) return true;
      this.bodies.delete(record.id);
      return false;
    });
    const removed = this.size - kept.length;
    this.#records = kept;
    this.#start = 0;
    return removed;
  }

  get size(): number {
    return this.#records.length - this.#start;
  }

  #dropOldest(): void {
    const oldest = this.#records[this.#start];
    if (oldest) this.bodies.delete(oldest.id);
    this.#start++;
    if (this.#start > 1024 && this.#start * 2 > this.#records.length) {
      this.#records = this.#records.slice(this.#start);
      this.#start = 0;
    }
  }
}
