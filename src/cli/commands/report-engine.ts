/**
 * @module
 * Who reads an events file for `stepwise report` (`--engine`): the JS reader (`js`), DuckDB
 * (`duckdb`, an optional peer dependency: without it, one line says how to install it, exit 2),
 * or `auto`, the default: DuckDB when it is installed and the file is large enough for it to
 * matter (the size from which the JS reader starts worker threads, 64 MiB), else the JS reader.
 * Stdin and `--reasons-from-logs` (which needs every event) are always the JS reader's.
 */
import { stat } from "node:fs/promises";
import { AnalyticsError } from "../../analytics/errors.ts";
import type { EventSource } from "../../analytics/sources/types.ts";
import { installedPackage, requireOptionalPackages } from "../optional-packages.ts";
import type { ReportCommandDependencies, ReportOptions } from "./report-options.ts";

/** Files from this size are DuckDB's under `--engine auto` (the JS reader's parallel threshold). */
export const autoDuckdbFromBytes = 64 * 1024 * 1024;

/** `events` (the JS reader of `input`), or DuckDB over `input` when the engine says so. */
export async function withEngine(
  input: string,
  events: EventSource,
  options: ReportOptions,
  dependencies: ReportCommandDependencies,
): Promise<EventSource> {
  const engine = options.engine ?? "auto";
  if (engine === "js") return events;
  if (engine === "duckdb") {
    if (input === "-")
      throw invalid(
        "--engine duckdb reads a file, not stdin: give the events file, or use --engine js.",
      );
    if (options.reasonsFromLogs)
      throw invalid("--reasons-from-logs reads every event: use it with --engine js (or auto).");
    requireOptionalPackages(
      "stepwise report --engine duckdb",
      ["@duckdb/node-api"],
      dependencies.resolvePackage,
    );
  } else {
    if (input === "-" || options.reasonsFromLogs) return events;
    const installed = (dependencies.resolvePackage ?? installedPackage)("@duckdb/node-api");
    const size = await stat(input).then(
      (found) => (found.isFile() ? found.size : 0),
      () => 0,
    );
    if (!installed || size < autoDuckdbFromBytes) return events;
  }
  const note = dependencies.note ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { withDuckdbEngine } = await import("../../analytics/duckdb/duckdb-events.ts");
  return withDuckdbEngine(input, events, {
    onFallback: (reason) => note(`stepwise report: ${input} read by the JS engine: ${reason}.`),
  });
}

function invalid(message: string): AnalyticsError {
  return new AnalyticsError({ code: "analytics_invalid_option", message });
}
