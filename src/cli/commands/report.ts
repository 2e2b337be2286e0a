/**
 * @module
 * `stepwise report`: step rates, availability, fallback rate, latency, tokens, cost and cache
 * hits from an events file (or stdin), the gateway's logs, or an Analytics Engine export; as a
 * table, JSON, CSV or a self-contained HTML page; with thresholds that fail CI or cron jobs.
 */
import { writeFile } from "node:fs/promises";
import { Command, Option } from "commander";
import pc from "picocolors";
import { AnalyticsError } from "../../analytics/errors.ts";
import type { Dimension, parseWindow, ReportSource } from "../../analytics/index.ts";
import { thresholdMetrics } from "../../analytics/thresholds.ts";

/** What the command reads from its surroundings; tests inject these. */
export interface ReportCommandDependencies {
  /** Clock in epoch ms (default `Date.now`). */
  readonly now?: () => number;
  /** Environment for CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_BASE_URL. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where `-` reads from (default `process.stdin`). */
  readonly stdin?: NodeJS.ReadableStream;
  /** Where the report is written (default `process.stdout`). */
  readonly write?: (text: string) => void;
  /** Fetch for the logs and SQL APIs (default the global `fetch`). */
  readonly fetch?: typeof globalThis.fetch;
  /** Waits between API retries (default a timer). */
  readonly sleep?: (milliseconds: number) => Promise<void>;
  /**
   * Where the progress line of a long logs pull goes (default: stderr when it is a terminal,
   * rewritten in place; nowhere otherwise, so cron logs stay clean).
   */
  readonly progress?: (line: string) => void;
}

interface ReportOptions {
  source: "events" | "logs" | "analytics-engine";
  gateway: string[];
  route: string[];
  by: string;
  since?: string;
  until?: string;
  bucket?: string;
  compare?: string;
  json?: boolean;
  csv?: boolean;
  html?: string;
  failAbove: string[];
  failBelow: string[];
  accountId?: string;
  baseUrl?: string;
  perPage: string;
  dataset?: string;
}

const dimensionSets: Record<string, Dimension[]> = {
  step: ["gateway", "route", "step", "provider", "model"],
  route: ["gateway", "route"],
  gateway: ["gateway"],
  provider: ["provider"],
  model: ["provider", "model"],
};

const examples = `
Examples:
  stepwise report events.jsonl
  stepwise report events.jsonl --by provider --since 24h --compare previous
  stepwise report events.jsonl --route default --bucket 5m --html report.html
  cat events.jsonl | stepwise report - --json
  stepwise report events.jsonl --since 1h --fail-above fallback-rate=0.05 --fail-below availability=0.99
  CLOUDFLARE_API_TOKEN=… stepwise report --source logs --gateway chat-prod --account-id <id> --since 24h
  CLOUDFLARE_API_TOKEN=… stepwise report --source analytics-engine --account-id <id> --since 30d --by route,metadata.plan
  CLOUDFLARE_API_TOKEN=… stepwise report --source analytics-engine --account-id <id> --since 1h --compare previous --fail-below availability=0.99
  stepwise report export.json --source analytics-engine --by route --csv

Figures: calls, share, success rate, availability (calls answered / calls made; 5xx, 429, 408
and network errors count against it), fallback rate (share served by step ≥ 1), p50/p95/p99
latency, tokens, cost, cache hit rate. Threshold metrics: ${Object.keys(thresholdMetrics).join(", ")}.
Exit codes: 0 ok, 1 a threshold was crossed or the input could not be read.`;

const collect = (value: string, previous: string[]) => [...previous, value];

/** The `report` command. */
export function reportCommand(dependencies: ReportCommandDependencies = {}): Command {
  return new Command("report")
    .description(
      "Step rates, availability, fallback rate, latency and cost from events, logs or Analytics Engine",
    )
    .argument("[input]", "events JSON-lines file or Analytics Engine export; - reads stdin")
    .addOption(
      new Option("--source <kind>", "where events come from")
        .choices(["events", "logs", "analytics-engine"])
        .default("events"),
    )
    .option(
      "--gateway <id>",
      "only this gateway (repeatable); with --source logs, the gateway to read",
      collect,
      [],
    )
    .option("--route <name>", "only this route (repeatable)", collect, [])
    .option(
      "--by <dimensions>",
      "group by step|provider|model|route|gateway|metadata.<key> (comma list)",
      "step",
    )
    .option("--since <time>", "window start: ISO time, date, or a duration back from now (24h)")
    .option("--until <time>", "window end (exclusive; default now when --since is given)")
    .option("--bucket <size>", "time buckets: 1m, 5m, 1h, 1d (per-bucket rows and a series table)")
    .option("--compare <window>", "compare with: previous, a shift back (7d), or <since>..<until>")
    .addOption(new Option("--json", "print the report as JSON").conflicts("csv"))
    .option("--csv", "print the report as CSV (long format)")
    .option("--html <file>", "also write a self-contained HTML report with a chart to <file>")
    .option(
      "--fail-above <metric=value>",
      "exit 1 if the metric is above the value (repeatable)",
      collect,
      [],
    )
    .option(
      "--fail-below <metric=value>",
      "exit 1 if the metric is below the value (repeatable)",
      collect,
      [],
    )
    .option(
      "--account-id <id>",
      "logs, live Analytics Engine: Cloudflare account id (default $CLOUDFLARE_ACCOUNT_ID)",
    )
    .option(
      "--dataset <name>",
      "live Analytics Engine: the dataset the Worker writes (default stepwise_events)",
    )
    .option(
      "--base-url <url>",
      "logs, live Analytics Engine: API base URL (default $CLOUDFLARE_BASE_URL or Cloudflare's)",
    )
    .option("--per-page <n>", "logs: records per page", "50")
    .addHelpText("after", examples)
    .action(async (input: string | undefined, options: ReportOptions) => {
      // The analytics load when the command runs, not when `stepwise --help` starts.
      const {
        buildReport,
        parseBucket,
        parseCompareWindow,
        parseThreshold,
        parseWindow,
        renderCsv,
        renderHtml,
        renderJson,
        renderTable,
        ThresholdError,
      } = await import("../../analytics/index.ts");
      const now = (dependencies.now ?? Date.now)();
      const write = dependencies.write ?? ((text: string) => process.stdout.write(text));
      const window = parseWindow(options.since, options.until, now);
      const thresholds = [
        ...options.failAbove.map((text) => parseThreshold(text, "above")),
        ...options.failBelow.map((text) => parseThreshold(text, "below")),
      ];
      const source = await openSource(input, options, window, dependencies);
      const report = await buildReport(source, {
        dimensions: parseDimensions(options.by),
        window,
        bucketMs: options.bucket === undefined ? null : parseBucket(options.bucket),
        gateways: options.gateway,
        routes: options.route,
        compareWindow:
          options.compare === undefined ? null : parseCompareWindow(options.compare, window, now),
        thresholds,
        now: () => now,
      });
      write(
        options.json ? renderJson(report) : options.csv ? renderCsv(report) : renderTable(report),
      );
      if (options.html !== undefined) {
        await writeFile(options.html, renderHtml(report), "utf8");
        if (!options.json && !options.csv)
          write(pc.dim(`HTML report written to ${options.html}\n`));
      }
      if (report.thresholds.breaches.length > 0)
        throw new ThresholdError(report.thresholds.breaches);
    });
}

async function openSource(
  input: string | undefined,
  options: ReportOptions,
  window: ReturnType<typeof parseWindow>,
  dependencies: ReportCommandDependencies,
): Promise<ReportSource> {
  const { analyticsEngineSource, eventsFileSource, gatewayLogsSource } = await import(
    "../../analytics/sources/index.ts"
  );
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
    const [gatewayId, ...others] = options.gateway;
    if (!gatewayId || others.length > 0)
      throw invalid(
        "--source logs needs exactly one --gateway <id>: the gateway whose logs are read.",
      );
    const accountId = options.accountId ?? env.CLOUDFLARE_ACCOUNT_ID;
    if (!accountId)
      throw invalid(
        "--source logs needs the Cloudflare account id. Pass --account-id <id> or set CLOUDFLARE_ACCOUNT_ID.",
      );
    const apiToken = env.CLOUDFLARE_API_TOKEN;
    if (!apiToken)
      throw invalid(
        "--source logs needs an API token with AI Gateway Read permission. Set CLOUDFLARE_API_TOKEN.",
      );
    const perPage = Number(options.perPage);
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 50)
      throw invalid(`--per-page "${options.perPage}" must be a whole number from 1 to 50.`);
    const progress =
      dependencies.progress ??
      (process.stderr.isTTY ? (line: string) => process.stderr.write(`\r\u001b[2K${line}`) : null);
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
  if (input === undefined) {
    throw invalid(
      `Give the ${options.source === "events" ? "events file" : "Analytics Engine export"} to read, or - to read stdin (e.g. stepwise report events.jsonl).`,
    );
  }
  const inputOptions = dependencies.stdin ? { stdin: dependencies.stdin } : {};
  return options.source === "events"
    ? eventsFileSource(input, inputOptions)
    : analyticsEngineSource(input, inputOptions);
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

/** `--by step,provider` → the dimensions to group by (see `dimensionSets`). */
export function parseDimensions(text: string): Dimension[] {
  const wanted = new Set<Dimension>();
  for (const item of text.split(",").map((part) => part.trim())) {
    if (/^metadata\.[^,\s]+$/.test(item)) {
      wanted.add(item as Dimension);
      continue;
    }
    const set = dimensionSets[item];
    if (!set)
      throw invalid(
        `--by "${item}" is not a dimension. Use step, provider, model, route, gateway or metadata.<key> (a comma list groups by several).`,
      );
    for (const dimension of set) wanted.add(dimension);
  }
  return [...wanted];
}

function invalid(message: string): AnalyticsError {
  return new AnalyticsError({ code: "analytics_invalid_option", message });
}
