/**
 * @module
 * The Worker's cron schedules. The key sweep and health probes run on `worker.cron`; the daily
 * summary (src/worker/daily-summary.ts) runs in the invocation scheduled at 01:00 UTC, so when it
 * is on and `worker.cron` does not fire then every day, a `0 1 * * *` schedule is added. It is
 * added only then: two schedules firing in the same minute would be two invocations, and two
 * summary points for the day.
 */
import { InfraError } from "./errors.ts";

/** The schedule of the daily summary: 01:00 UTC (Cloudflare's crons run in UTC). */
export const dailySummarySchedule = "0 1 * * *";

/**
 * The schedules of the Worker's cron trigger.
 * @param cron `worker.cron`
 * @param dailySummary whether the daily summary is on (its token is set)
 * @throws {InfraError} `worker_cron_unsupported` when the summary is on and `cron` fires at 01:00
 *   UTC on some days only: neither adding a schedule nor leaving it out gives one summary a day.
 */
export function workerSchedules(cron: string, dailySummary: boolean): string[] {
  if (!dailySummary) return [cron];
  const fields = cron.trim().split(/\s+/);
  const [minute = "", hour = "", ...days] = fields;
  const firesAtOne = fieldMatches(minute, 0, 59) && fieldMatches(hour, 1, 23);
  const everyDay = fields.length === 5 && days.every((field) => field === "*" || field === "?");
  if (!firesAtOne) return [cron, dailySummarySchedule];
  if (everyDay) return [cron];
  throw new InfraError({
    code: "worker_cron_unsupported",
    message: `worker.cron "${cron}" fires at 01:00 UTC on some days only, and the daily summary (stepwise:analyticsApiToken is set) runs at 01:00 UTC every day: use a cron that fires at 01:00 every day (the default "*/15 * * * *") or one that never does`,
  });
}

/**
 * Whether a cron field (`*`, `n`, `a-b`, `*\/s`, `a-b/s`, or a list of them) includes `value`.
 * Anything else (names, `L`, `W`, `#`) counts as not including it.
 */
export function fieldMatches(field: string, value: number, max: number): boolean {
  return field.split(",").some((part) => {
    const match = /^(\*|\d+(?:-\d+)?)(?:\/(\d+))?$/.exec(part);
    if (match === null) return false;
    const [, range = "", stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) return false;
    const [from, to] =
      range === "*"
        ? [0, max]
        : range.includes("-")
          ? range.split("-").map(Number)
          : stepText === undefined
            ? [Number(range), Number(range)]
            : [Number(range), max];
    return value >= from! && value <= to! && (value - from!) % step === 0;
  });
}
