/**
 * @module
 * The state shared by every mock server of one `startMockProviders` call: accepted and revoked
 * keys, the fault picker, the attempt log, response ids and the clock. Keys are only compared,
 * never logged or recorded.
 */

import { FaultPicker, type FaultTarget } from "./fault-picker.ts";
import { parseFaultSchedule } from "./schedule.ts";
import type { FaultRule, FaultSchedule, MockAttempt } from "./types.ts";

/** An attempt while it is being answered; frozen copies go out through `attempts()`. */
export type AttemptRecord = { -readonly [Field in keyof MockAttempt]: MockAttempt[Field] };

export interface MockStateOptions {
  readonly keys?: Readonly<Record<string, readonly string[]>>;
  readonly faults?: FaultSchedule;
  readonly now: () => number;
}

export class MockState {
  readonly now: () => number;
  #picker: FaultPicker;
  readonly #accepted = new Map<string, ReadonlySet<string>>();
  readonly #revoked = new Map<string, Set<string>>();
  #attempts: AttemptRecord[] = [];
  #lastId = 0;

  constructor(options: MockStateOptions) {
    this.now = options.now;
    this.#picker = new FaultPicker(
      parseFaultSchedule(options.faults ?? { rules: [] }, { source: "options.faults" }),
    );
    for (const [provider, keys] of Object.entries(options.keys ?? {})) {
      this.#accepted.set(provider, new Set(keys));
    }
  }

  get schedule(): FaultSchedule {
    return this.#picker.schedule;
  }

  /**
   * Replaces the schedule and resets rule counts and the random sequence.
   * @throws FaultScheduleError when the schedule is invalid (the old one stays).
   */
  setFaults(schedule: unknown, source: string): void {
    this.#picker = new FaultPicker(parseFaultSchedule(schedule, { source }));
  }

  pickFault(target: FaultTarget): FaultRule | undefined {
    return this.#picker.pick(target);
  }

  /** Replaces the accepted keys; listing a revoked key accepts it again. */
  setKeys(provider: string, keys: readonly string[]): void {
    this.#accepted.set(provider, new Set(keys));
    const revoked = this.#revoked.get(provider);
    for (const key of keys) revoked?.delete(key);
  }

  revokeKey(provider: string, key: string): void {
    const revoked = this.#revoked.get(provider) ?? new Set<string>();
    revoked.add(key);
    this.#revoked.set(provider, revoked);
  }

  /** How a key checks out for a provider. */
  checkKey(provider: string, key: string | undefined): MockAttempt["auth"] {
    if (key === undefined || key === "") return "missing";
    if (this.#revoked.get(provider)?.has(key) === true) return "revoked";
    const accepted = this.#accepted.get(provider);
    return accepted === undefined || accepted.has(key) ? "valid" : "wrong";
  }

  /** Logs a new attempt (status 0 until something is sent) and returns it for updates. */
  openAttempt(provider: string, path: string): AttemptRecord {
    const attempt: AttemptRecord = {
      provider,
      model: null,
      path,
      receivedAt: this.now(),
      stream: false,
      status: 0,
      fault: null,
      auth: "missing",
    };
    this.#attempts.push(attempt);
    return attempt;
  }

  /** A snapshot of the log, in arrival order. */
  attempts(): readonly MockAttempt[] {
    return this.#attempts.map((attempt) => Object.freeze({ ...attempt }));
  }

  clearAttempts(): void {
    this.#attempts = [];
  }

  /** A response id, unique within this set of mocks. */
  nextId(prefix: string): string {
    this.#lastId += 1;
    return `${prefix}${String(this.#lastId).padStart(6, "0")}`;
  }
}
