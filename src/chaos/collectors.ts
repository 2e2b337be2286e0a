/**
 * @module
 * Drains what the running system accumulates, so a campaign of any length keeps memory bounded
 * and still sees everything: the mock providers' attempt log goes into the attempt tally, the
 * Worker's log lines and the gateway's log records go through the leak scanner. Each drain takes
 * what is there and removes it, synchronously, so nothing is counted twice or skipped.
 */
import type { LocalSystem } from "../demo/index.ts";
import type { AttemptTally } from "./attempt-tally.ts";
import type { LeakScanner } from "./leak-scanner.ts";

/** What the drains have seen so far. */
export interface DrainTotals {
  workerLogLines: number;
  gatewayLogRecords: number;
  mockAttempts: number;
}

export interface SystemDrain {
  /** Takes everything accumulated since the last drain. */
  drain(): void;
  readonly totals: Readonly<DrainTotals>;
}

/** A drain for the campaign's gateway of `system`. */
export function drainSystem(
  system: LocalSystem,
  gatewayId: string,
  tally: AttemptTally,
  scanner: LeakScanner,
): SystemDrain {
  const totals: DrainTotals = { workerLogLines: 0, gatewayLogRecords: 0, mockAttempts: 0 };
  return {
    totals,
    drain() {
      const mocks = system.emulator.mocks;
      if (mocks !== undefined) {
        const attempts = mocks.attempts;
        mocks.clearAttempts();
        tally.add(attempts);
        totals.mockAttempts += attempts.length;
      }
      // The Worker's stdout and stderr, as workerd wrote them.
      const lines = system.worker.logs.splice(0);
      for (const line of lines) scanner.scan("Worker log lines", line);
      totals.workerLogLines += lines.length;
      const logs = system.emulator.state.gateways.get(gatewayId)?.logs;
      if (logs !== undefined) {
        const records = logs.list();
        const scanned = new Set<string>();
        for (const record of records) {
          scanner.scan("gateway log records", JSON.stringify(record));
          scanned.add(record.id);
        }
        logs.remove((record) => scanned.has(record.id));
        totals.gatewayLogRecords += records.length;
      }
    },
  };
}
