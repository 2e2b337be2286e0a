/**
 * @module
 * `FaultScheduleError`: a fault schedule (from code, a scenario file, the admin endpoint or a
 * `--fault` flag) that cannot be used, with every problem found and the path of each bad field.
 */

import { StepwiseError } from "../../errors/index.ts";

/** One problem in a fault schedule. */
export interface FaultScheduleIssue {
  /** Dotted path of the bad field, e.g. `rules[1].rate`; empty for the whole schedule. */
  readonly path: string;
  /** What is wrong and how to fix it. */
  readonly message: string;
  /** 1-based line in the scenario file, when known. */
  readonly line?: number;
}

export type FaultScheduleErrorCode =
  | "fault_schedule_invalid"
  | "fault_schedule_not_found"
  | "fault_schedule_unreadable"
  | "fault_flag_invalid";

export interface FaultScheduleErrorOptions {
  readonly code: FaultScheduleErrorCode;
  /** Where the schedule came from: a file path, `--fault <flag>`, `setFaults`… */
  readonly source: string;
  readonly issues: readonly FaultScheduleIssue[];
  readonly cause?: unknown;
}

/** A fault schedule that cannot be used. The message lists every issue with its field path. */
export class FaultScheduleError extends StepwiseError {
  override readonly code: FaultScheduleErrorCode;
  readonly source: string;
  readonly issues: readonly FaultScheduleIssue[];

  constructor(options: FaultScheduleErrorOptions) {
    super({ code: options.code, message: formatIssues(options), cause: options.cause });
    this.name = "FaultScheduleError";
    this.code = options.code;
    this.source = options.source;
    this.issues = options.issues;
  }
}

function formatIssues({ source, issues }: FaultScheduleErrorOptions): string {
  const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
  const lines = issues.map((issue) => {
    const where = issue.path === "" ? "(top level)" : issue.path;
    const at = issue.line === undefined ? "" : ` (line ${issue.line})`;
    return `  ✖ ${where}${at}: ${issue.message}`;
  });
  return [`${source}: ${count} in the fault schedule`, ...lines].join("\n");
}
