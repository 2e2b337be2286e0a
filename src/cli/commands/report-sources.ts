/**
 * @module
 * Where `stepwise report` reads from: an events file (or stdin), the gateway's logs, an Analytics
 * Engine export, or the live Analytics Engine dataset; each source module is loaded only when it
 * is the one asked for.
 */

import { AnalyticsError } from "../../analytics/errors.ts";
import type { EventSource, ReportSource } from "../../analytics/sources/types.ts";
import type { TimeWindow } from "../../analytics/window.ts";
import { requireOptionalPackages } from "../optional-packages.ts";
import type { ReportCommandDependencies, ReportOptions } from "./report-options.ts";

export async function openSource(
  input: string | undefined,
  options: ReportOptions,
  window: TimeWindow,
  dependencies: ReportCommandDependencies,
): Promise<ReportSource> {
  const env = dependencies.env ?? process.env;
  if (options.source === "analytics-engine" && input === undefined) {
    return liveAnalyticsEngine(options, env, dependencies);
  }
  if (options.dataset !== undefined) {
    throw invalid(
      "--dataset names the dataset of a live Analytics Engine query: use it with --source analytics-engine --account-id <id> and no file.",
    );
  }
  if (options.source === "logs") {
    if (input !== undefined)
      throw invalid(
        `--source logs reads the gateway's logs API, not "${input}"; drop the file argument.`,
      );
    return logsSource("--source logs", options, window, dependencies);
  }
  if (options.reasonsFromLogs && options.source !== "events") {
    throw invalid(
      "--reasons-from-logs fills the client's events with the gateway's reasons: use it with --source events (--source logs has them already).",
    );
  }
  if (input === undefined) {
    throw invalid(
      `Give the ${options.source === "events" ? "events file" : "Analytics Engine export"} to read, or - to read stdin (e.g. stepwise report events.jsonl).`,
    );
  }
  const inputOptions = dependencies.stdin ? { stdin: dependencies.stdin } : {};
  if (options.source === "events") {
    const { eventsFileSource } = await import("../../analytics/sources/events-file.ts");
    const { withEngine } = await import("./report-engine.ts");
    const events = await withEngine(
      input,
      eventsFileSource(input, inputOptions),
      options,
      dependencies,
    );
    if (!options.reasonsFromLogs) return events;
    const logs = await logsSource("--reasons-from-logs", options, window, dependencies);
    const { eventsWithLogReasons } = await import("../../analytics/sources/log-failure-reasons.ts");
    return eventsWithLogReasons(events, logs);
  }
  const { analyticsEngineSource } = await import("../../analytics/sources/analytics-engine.ts");
  return analyticsEngineSource(input, inputOptions);
}

/** The gateway's logs API as a source (`--source logs`, `--reasons-from-logs`). */
async function logsSource(
  flag: string,
  options: ReportOptions,
  window: TimeWindow,
  dependencies: ReportCommandDependencies,
): Promise<EventSource> {
  const env = dependencies.env ?? process.env;
  const [gatewayId, ...others] = options.gateway;
  if (!gatewayId || others.length > 0)
    throw invalid(`${flag} needs exactly one --gateway <id>: the gateway whose logs are read.`);
  const accountId = options.accountId ?? env.CLOUDFLARE_ACCOUNT_ID;
  if (!accountId)
    throw invalid(
      `${flag} needs the Cloudflare account id. Pass --account-id <id> or set CLOUDFLARE_ACCOUNT_ID.`,
    );
  const apiToken = env.CLOUDFLARE_API_TOKEN;
  if (!apiToken)
    throw invalid(
      `${flag} needs an API token with AI Gateway Read permission. Set CLOUDFLARE_API_TOKEN.`,
    );
  const perPage = Number(options.perPage);
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 50)
    throw invalid(`--per-page "${options.perPage}" must be a whole number from 1 to 50.`);
  const progress =
    dependencies.progress ??
    (process.stderr.isTTY ? (line: string) => process.stderr.write(`\r\u001b[2K${line}`) : null);
  // The logs API is read with the `cloudflare` SDK, an optional peer dependency.
  requireOptionalPackages(`stepwise report ${flag}`, ["cloudflare"], dependencies.resolvePackage);
  const { gatewayLogsSource } = await import("../../analytics/sources/gateway-logs.ts");
  return gatewayLogsSource({
    accountId,
    gatewayId,
    apiToken,
    baseURL: options.baseUrl ?? env.CLOUDFLARE_BASE_URL,
    perPage,
    window,
    ...(dependencies.fetch ? { fetch: dependencies.fetch } : {}),
    ...(dependencies.sleep ? { sleep: dependencies.sleep } : {}),
    ...(progress
      ? {
          onProgress: ({ records, calls, pages, cursor }) =>
            progress(
              `reading gateway logs: ${records.toLocaleString("en-US")} records, ${calls.toLocaleString("en-US")} calls, ${pages} pages${cursor ? `, up to ${new Date(cursor.time).toISOString()}` : ""}`,
            ),
        }
      : {}),
  });
}

/** `--source analytics-engine` without a file: the live dataset through the SQL API. */
async function liveAnalyticsEngine(
  options: ReportOptions,
  env: Readonly<Record<string, string | undefined>>,
  dependencies: ReportCommandDependencies,
): Promise<ReportSource> {
  const accountId = options.accountId ?? env.CLOUDFLARE_ACCOUNT_ID;
  if (!accountId)
    throw invalid(
      "--source analytics-engine reads an export file, or queries the live dataset with --account-id <id> (or CLOUDFLARE_ACCOUNT_ID). Give one of them.",
    );
  const apiToken = env.CLOUDFLARE_API_TOKEN;
  if (!apiToken)
    throw invalid(
      "--source analytics-engine --account-id needs an API token with Account Analytics Read permission. Set CLOUDFLARE_API_TOKEN.",
    );
  const { analyticsEngineSqlSource } = await import("../../analytics/sql/index.ts");
  return analyticsEngineSqlSource({
    accountId,
    apiToken,
    ...(options.dataset === undefined ? {} : { dataset: options.dataset }),
    ...((options.baseUrl ?? env.CLOUDFLARE_BASE_URL)
      ? { baseURL: options.baseUrl ?? env.CLOUDFLARE_BASE_URL }
      : {}),
    ...(dependencies.fetch ? { fetch: dependencies.fetch } : {}),
    ...(dependencies.sleep ? { sleep: dependencies.sleep } : {}),
  });
}

function invalid(message: string): AnalyticsError {
  return new AnalyticsError({ code: "analytics_invalid_option", message });
}
