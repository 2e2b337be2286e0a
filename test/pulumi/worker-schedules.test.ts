/**
 * The Worker's cron schedules: the daily summary runs in the invocation scheduled at 01:00 UTC,
 * so it gets a `0 1 * * *` schedule exactly when `worker.cron` does not fire then, and never a
 * second invocation in that minute (two summary points for one day).
 */
import { describe, expect, it } from "vitest";
import { InfraError } from "../../src/pulumi/errors.ts";
import { fieldMatches, workerSchedules } from "../../src/pulumi/worker-schedules.ts";

describe("workerSchedules", () => {
  it("is worker.cron alone while the daily summary is off", () => {
    expect(workerSchedules("0 */6 * * *", false)).toEqual(["0 */6 * * *"]);
  });

  it("keeps one schedule when worker.cron already fires at 01:00 UTC every day", () => {
    for (const cron of [
      "*/15 * * * *",
      "0 * * * *",
      "0,30 1 * * *",
      "0 0-6/1 * * *",
      "0 1 * * ?",
    ]) {
      expect(workerSchedules(cron, true), cron).toEqual([cron]);
    }
  });

  it("adds 0 1 * * * when worker.cron never fires at 01:00 UTC", () => {
    for (const cron of [
      "10,40 * * * *",
      "5 * * * *",
      "0 */2 * * *",
      "0 2-23 * * *",
      "0 0 * * MON",
    ]) {
      expect(workerSchedules(cron, true), cron).toEqual([cron, "0 1 * * *"]);
    }
  });

  it("refuses a cron that fires at 01:00 UTC on some days only, naming the fix", () => {
    try {
      workerSchedules("0 1 * * 1-5", true);
      expect.unreachable();
    } catch (error) {
      expect(InfraError.isInstance(error)).toBe(true);
      expect((error as InfraError).code).toBe("worker_cron_unsupported");
      expect((error as Error).message).toContain('"*/15 * * * *"');
    }
  });
});

describe("fieldMatches", () => {
  it("reads *, values, ranges, steps and lists", () => {
    expect(fieldMatches("*", 1, 23)).toBe(true);
    expect(fieldMatches("*/2", 1, 23)).toBe(false);
    expect(fieldMatches("1/2", 3, 23)).toBe(true);
    expect(fieldMatches("2-4", 1, 23)).toBe(false);
    expect(fieldMatches("0-10/5", 5, 59)).toBe(true);
    expect(fieldMatches("3,1", 1, 23)).toBe(true);
    expect(fieldMatches("L", 1, 31)).toBe(false);
  });
});
