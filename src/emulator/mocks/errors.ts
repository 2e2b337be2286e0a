/**
 * @module
 * `FaultScheduleError`: a fault schedule (from code, a scenario file, the admin endpoint or a
 * `--fault-rule` option) that cannot be used, with every problem found and the path of each bad field.
 */

import { type DocumentIssue, formatIssues } from "../../config/document.ts";
import { StepwiseError } from "../../errors/index.ts";

/** One problem in a fault schedule: the path of the bad field, its line, what is wrong and the fix. */
export type FaultScheduleIssue = DocumentIssue;

export type FaultScheduleErrorCode =
  | "fault_schedule_invalid"
  | "fault_schedule_not_found"
  | "fault_schedule_unreadable"
  | "fault_flag_invalid";

export interface FaultScheduleErrorOptions {
  readonly code: FaultScheduleErrorCode;
  /** Where the schedule came from: a file path, `--fault-rule <rule>`, `setFaults`… */
  readonly source: string;
  readonly issues: readonly FaultScheduleIssue[];
  readonly cause?: unknown;
}

/** A fault schedule that cannot be used. The message lists every issue with its field path. */
export class FaultScheduleError extends StepwiseError {
  static override readonly kind: string = "stepwise.FaultScheduleError";
  override readonly code: FaultScheduleErrorCode;
  readonly source: string;
  readonly issues: readonly FaultScheduleIssue[];

  constructor(options: FaultScheduleErrorOptions) {
    super({
      code: options.code,
      message: formatIssues(options.source, "fault schedule", options.issues),
      cause: options.cause,
    });
    this.name = "FaultScheduleError";
    this.code = options.code;
    this.source = options.source;
    this.issues = options.issues;
  }
}
