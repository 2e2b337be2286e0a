/**
 * @module
 * The machine a benchmark ran on, for the report: CPU model, cores, memory, Node, OS, the load
 * average when the run started (other jobs skew figures on a shared machine) and the date.
 */
import os from "node:os";

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryBytes: number;
  readonly node: string;
  readonly os: string;
  /** 1-minute load average at the start of the run. */
  readonly loadAverage: number;
  /** ISO-8601 start of the run. */
  readonly date: string;
}

/** Reads the machine's description now. */
export function describeMachine(now: () => number = Date.now): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown CPU",
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: os.loadavg()[0] ?? 0,
    date: new Date(now()).toISOString(),
  };
}
