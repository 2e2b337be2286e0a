/**
 * @module
 * `stepwise report`: step rates, availability, fallback rate, latency, tokens, cost, cache hits
 * and the client's steering (skipped and demoted steps, hedges) from an events file (or stdin),
 * the gateway's logs, or an Analytics Engine export; as a table, JSON, CSV or a self-contained
 * HTML page; with thresholds that fail CI or cron jobs.
 */
import { writeFile } from "node:fs/promises";
import { Command, Option } from "commander";
import pc from "picocolors";
import type { Dimension } from "../../analytics/dimensions.ts";
import { AnalyticsError, ThresholdError } from "../../analytics/errors.ts";
import { thresholdMetrics } from "../../analytics/thresholds.ts";
import type { ReportCommandDependencies, ReportOptions } from "./report-options.ts";

const dimensionSets: Record<string, Dimension[]> = {
  step: ["gateway", "route", "step", "provider", "model"],
  route: ["gateway", "route"],
  gateway: ["gateway"],
  provider: ["provider"],
  model: ["provider", "model"],
  // Each route's generations side by side: universal, compat, REST.
  endpoint: ["gateway", "route", "endpoint"],
};

const examples = `
Examples:
  stepwise report events.jsonl
  stepwise report events.jsonl --by provider --since 24h --compare previous
  stepwise report events.jsonl --route default --bucket 5m --html report.html
  stepwise report events-10m.jsonl --engine duckdb --by route
  cat events.jsonl | stepwise report - --json
  stepwise report events.jsonl --since 1h --fail-above fallback-rate=0.05 --fail-below availability=0.99
  CLOUDFLARE_API_TOKEN=… stepwise report --source logs --gateway chat-prod --account-id <id> --since 24h
  CLOUDFLARE_API_TOKEN=… stepwise report --source analytics-engine --account-id <id> --since 30d --by route,metadata.plan
  CLOUDFLARE_API_TOKEN=… stepwise report --source analytics-engine --account-id <id> --since 1h --compare previous --fail-below availability=0.99
  stepwise report export.json --source analytics-engine --by route --csv
  stepwise report events.jsonl --by metadata.plan --config Pulumi.dev.yaml --html report.html
  CLOUDFLARE_API_TOKEN=… stepwise report events.jsonl --reasons-from-logs --gateway chat-prod --account-id <id>

Figures: calls, share, success rate, availability (calls answered / calls made; 5xx, 429, 408
and network errors count against it), fallback rate (share served by step ≥ 1), p50/p95/p99
latency, tokens, cost, cache hit rate, and over budget (calls a routing policy sent to its
budget's over chain; the client's events record it). From the client's events also, per route and
step: calls that skipped or demoted a step (provider limits, health) with reasons, and hedges
(due, sent, won, estimated extra cost); — where the events recorded none. Per route and step
always (whatever --by says): calls served and failures by reason (429, other 4xx, 5xx, timeout,
stream break, refusal, validation…), and the cost of fallback beside what the same calls would
have cost on the route's primary (prices from --config). Threshold metrics: ${Object.keys(thresholdMetrics).join(", ")}.
Exit codes: 0 ok · 1 a threshold was crossed or an API failed · 2 usage error (a bad option,
a directory, or a file that is not events)`;

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
    .addOption(
      new Option(
        "--engine <engine>",
        "who reads an events file: duckdb (optional peer @duckdb/node-api), js, or auto (duckdb for a file of 64 MiB or more when installed)",
      )
        .choices(["auto", "duckdb", "js"])
        .default("auto"),
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
      "group by step|provider|model|route|gateway|endpoint|metadata.<key> (comma list; endpoint: universal, compat, provider or rest)",
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
    .option(
      "--config <file>",
      "stack or config file: its prices and each route's primary price the cost of fallback",
    )
    .option(
      "--reasons-from-logs",
      "events: fill the reasons of steps the gateway passed over from its logs (--gateway, --account-id)",
    )
    .addHelpText("after", examples)
    .action(async (input: string | undefined, options: ReportOptions) => {
      // The analytics load when the command runs, not when `stepwise --help` starts, and only
      // the parts this run needs (the events path loads neither zod nor the cloudflare SDK).
      const [{ buildReport }, windows, { parseThreshold }, render, { openSource }] =
        await Promise.all([
          import("../../analytics/report.ts"),
          import("../../analytics/window.ts"),
          import("../../analytics/thresholds.ts"),
          import("../../analytics/render/index.ts"),
          import("./report-sources.ts"),
        ]);
      const { parseBucket, parseCompareWindow, parseWindow } = windows;
      const { renderCsv, renderHtml, renderJson, renderTable } = render;
      const now = (dependencies.now ?? Date.now)();
      const write = dependencies.write ?? ((text: string) => process.stdout.write(text));
      const window = parseWindow(options.since, options.until, now);
      const thresholds = [
        ...options.failAbove.map((text) => parseThreshold(text, "above")),
        ...options.failBelow.map((text) => parseThreshold(text, "below")),
      ];
      const source = await openSource(input, options, window, dependencies);
      const pricing = options.config === undefined ? null : await pricingFrom(options.config);
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
        pricing,
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

/** The prices and route primaries of `--config <file>` (the config module loads only then). */
async function pricingFrom(file: string) {
  const [{ loadConfigFrom }, { pricingOf }] = await Promise.all([
    import("../config-options.ts"),
    import("../../analytics/explain.ts"),
  ]);
  const { config } = await loadConfigFrom({ file });
  return pricingOf(config);
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
        `--by "${item}" is not a dimension. Use step, provider, model, route, gateway, endpoint or metadata.<key> (a comma list groups by several).`,
      );
    for (const dimension of set) wanted.add(dimension);
  }
  return [...wanted];
}

function invalid(message: string): AnalyticsError {
  return new AnalyticsError({ code: "analytics_invalid_option", message });
}
