/**
 * @module
 * One gateway's request logs, bounded the way Cloudflare bounds them: at the gateway's log limit
 * (`log_management`), `STOP_INSERTING` drops new records and `DELETE_OLDEST` evicts the oldest.
 * An emulator-wide `capacity` also bounds memory (a ring buffer of that many records; past it the
 * oldest record always goes). Bodies are kept beside the records, bounded on their own (see
 * `log-bodies.ts`).
 */
import { type LogBodyLimits, LogBodyStore } from "./log-bodies.ts";

/** A log record, with the fields of Cloudflare's `LogListResponse` (snake_case, as on the wire). */
export interface GatewayLogRecord {
  /** Lowercase UUIDv7 (opaque), equal to the response's `cf-aig-log-id`. */
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
  /** The caller's `cf-aig-event-id`, else the request id. */
  readonly event_id?: string;
  /** The client's `User-Agent`, when it sent one (changelog 2026-06-12). */
  readonly user_agent?: string;
  /** The provider was called with Cloudflare's credentials (Unified Billing). */
  readonly wholesale?: boolean;
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

/**
 * A gateway's records in a ring buffer: memory is bounded by construction (never more than
 * `capacity` records, the oldest overwritten in place), and nothing is copied on insert.
 */
export class LogStore {
  /** The ring; grows by push up to `capacity` slots, then wraps. */
  #slots: (GatewayLogRecord | undefined)[] = [];
  /** Slot of the oldest record. */
  #head = 0;
  #size = 0;
  readonly #limits: () => LogLimits;
  readonly #capacity: number;
  /** The stored request/response bodies, by log id. */
  readonly bodies: LogBodyStore;

  /**
   * @param limits the gateway's current log limit and strategy (read on every insert)
   * @param capacity most records kept whatever the gateway's limit: the memory bound
   */
  constructor(limits: () => LogLimits, capacity: number, bodyLimits: LogBodyLimits = {}) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`Log capacity must be a whole number of at least 1, got ${capacity}.`);
    }
    this.#limits = limits;
    this.#capacity = capacity;
    this.bodies = new LogBodyStore(bodyLimits);
  }

  /** Most records kept. */
  get capacity(): number {
    return this.#capacity;
  }

  get size(): number {
    return this.#size;
  }

  /** Adds a record; false when the gateway's limit is reached under `STOP_INSERTING`. */
  add(record: GatewayLogRecord): boolean {
    const { limit, strategy } = this.#limits();
    if (limit !== null && this.#size >= limit) {
      if (strategy === "STOP_INSERTING") return false;
      while (this.#size >= limit) this.#dropOldest();
    }
    while (this.#size >= this.#capacity) this.#dropOldest();
    const slot = (this.#head + this.#size) % this.#capacity;
    if (slot === this.#slots.length) this.#slots.push(record);
    else this.#slots[slot] = record;
    this.#size++;
    return true;
  }

  /** Every record, oldest first. */
  list(): GatewayLogRecord[] {
    const records: GatewayLogRecord[] = new Array(this.#size);
    for (let index = 0; index < this.#size; index++) records[index] = this.#at(index);
    return records;
  }

  get(id: string): GatewayLogRecord | undefined {
    const index = this.#find(id);
    return index === -1 ? undefined : this.#at(index);
  }

  /** Replaces fields of a record (`logs.edit`); undefined when there is no such record. */
  update(id: string, changes: Partial<GatewayLogRecord>): GatewayLogRecord | undefined {
    const index = this.#find(id);
    if (index === -1) return undefined;
    const updated = { ...this.#at(index), ...changes, id };
    this.#slots[(this.#head + index) % this.#capacity] = updated;
    return updated;
  }

  /** Removes the records a predicate selects; returns how many went. */
  remove(predicate: (record: GatewayLogRecord) => boolean): number {
    const kept = this.list().filter((record) => {
      if (!predicate(record)) return true;
      this.bodies.delete(record.id);
      return false;
    });
    const removed = this.#size - kept.length;
    this.#slots = kept;
    this.#head = 0;
    this.#size = kept.length;
    return removed;
  }

  /** The record at a position, 0 being the oldest. */
  #at(index: number): GatewayLogRecord {
    return this.#slots[(this.#head + index) % this.#capacity]!;
  }

  /** The position of a record, newest first (recent records are the ones looked up). */
  #find(id: string): number {
    for (let index = this.#size - 1; index >= 0; index--) {
      if (this.#at(index).id === id) return index;
    }
    return -1;
  }

  #dropOldest(): void {
    const oldest = this.#slots[this.#head];
    if (oldest) this.bodies.delete(oldest.id);
    this.#slots[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#capacity;
    this.#size--;
  }
}
