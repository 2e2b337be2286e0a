/**
 * @module
 * JSON output: the whole `Report` (figures at full precision, rates as fractions, times as
 * ISO-8601), stable for scripts and dashboards.
 */
import type { Report } from "../report.ts";

/** Renders the report as pretty-printed JSON. */
export function renderJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
