/**
 * @module
 * The cron's daily summary: once a day (the cron run scheduled at 01:00 UTC, an hour after the
 * day ends so late points have landed), the Worker asks the Analytics Engine SQL API for the
 * previous UTC day's figures per gateway and route, over the call points it wrote itself, and
 * writes one summary point per route to the `DAILY_SUMMARY` dataset. A dashboard or a yearly
 * trend then reads a few rows per day instead of every call. It also logs one line per route.
 *
 * Optional: it runs only when `DAILY_SUMMARY` is bound and `ANALYTICS_API_TOKEN` (a token with
 * Account Analytics Read) is set; otherwise it does nothing. A failure is logged and never fails
 * the cron's other work. At most 25 points are written (Analytics Engine's limit per invocation).
 *
 * Summary point: `index1` gateway; `blob1` day (`YYYY-MM-DD`), `blob2` gateway, `blob3` route;
 * `double1` calls, `double2` ok, `double3` answered, `double4` fallbacks, `double5` cost (USD),
 * `double6` p95 latency (ms), `double7` {@link dailySummaryVersion}. Counts are corrected for
 * sampling (`_sample_interval`); the definitions are those of `stepwise report`.
 */
import {
  callColumnOf,
  callPointColumns,
  callPointSchemaVersion,
  callsSubquery,
  sampleIntervalColumn,
  timestampColumn,
} from "./analytics-schema.ts";
import type { AnalyticsDatasetLike } from "./bindings.ts";
import type { FetchFunction, WorkerLogger } from "./handler-context.ts";

/** The columns of a call's last attempt (see `callsSubquery`). */
const column = Object.fromEntries(
  Object.entries(callPointColumns).map(([field, name]) => [field, callColumnOf(name)]),
) as Record<keyof typeof callPointColumns, string>;
const weight = callColumnOf(sampleIntervalColumn);

/** Written in `double7` of a summary point. */
export const dailySummaryVersion = 1;
/** Analytics Engine accepts at most this many points per invocation. */
const maxPointsPerInvocation = 25;
const dayMs = 86_400_000;
/** The summary runs in the cron invocation scheduled in this minute of the UTC day (01:00). */
const summaryMinuteOfDay = 60;

/** The bindings the daily summary reads (all optional). */
export interface DailySummaryEnv {
  /** Dataset the summary points go to, e.g. `stepwise_daily`. */
  DAILY_SUMMARY?: AnalyticsDatasetLike;
  /** API token with Account Analytics Read (Worker secret). */
  ANALYTICS_API_TOKEN?: string;
  /** Dataset the call points are in (default `stepwise_events`). */
  EVENTS_DATASET?: string;
  /** SQL API base (default Cloudflare's); a local stand-in in tests. */
  ANALYTICS_API_URL?: string;
}

/** One route's day. */
export interface DailySummary {
  readonly day: string;
  readonly gateway: string;
  readonly route: string;
  readonly calls: number;
  readonly ok: number;
  readonly answered: number;
  readonly fallbacks: number;
  readonly cost: number;
  readonly p95LatencyMs: number | null;
}

export interface DailySummaryInput {
  readonly env: DailySummaryEnv;
  readonly accountId: string;
  /** The cron invocation's scheduled time (epoch ms). */
  readonly scheduledTime: number;
  readonly fetch: FetchFunction;
  readonly logger: WorkerLogger;
}

/** True for the cron invocation that writes the summary (scheduled at 01:00 UTC). */
export function isSummaryRun(scheduledTime: number): boolean {
  return Math.floor((scheduledTime % dayMs) / 60_000) === summaryMinuteOfDay;
}

/** Writes yesterday's summary when it is time and the bindings are there; never throws. */
export async function runDailySummary(input: DailySummaryInput): Promise<DailySummary[]> {
  const { env, logger } = input;
  if (!isSummaryRun(input.scheduledTime) || !env.DAILY_SUMMARY || !env.ANALYTICS_API_TOKEN) {
    return [];
  }
  const until = Math.floor(input.scheduledTime / dayMs) * dayMs;
  const day = new Date(until - dayMs).toISOString().slice(0, 10);
  try {
    const summaries = await querySummaries(input, until - dayMs, until, day);
    for (const summary of summaries.slice(0, maxPointsPerInvocation)) {
      env.DAILY_SUMMARY.writeDataPoint({
        indexes: [summary.gateway],
        blobs: [summary.day, summary.gateway, summary.route],
        doubles: [
          summary.calls,
          summary.ok,
          summary.answered,
          summary.fallbacks,
          summary.cost,
          summary.p95LatencyMs ?? -1,
          dailySummaryVersion,
        ],
      });
      const rate = (part: number) => `${((part / Math.max(1, summary.calls)) * 100).toFixed(2)}%`;
      logger.info(
        `stepwise worker: daily summary ${day} ${summary.gateway}/${summary.route}: ${summary.calls} calls, availability ${rate(summary.answered)}, fallback ${rate(summary.fallbacks)}`,
      );
    }
    if (summaries.length > maxPointsPerInvocation) {
      logger.warn(
        `stepwise worker: daily summary ${day}: ${summaries.length} routes, only the first ${maxPointsPerInvocation} written (Analytics Engine's limit per invocation)`,
      );
    }
    return summaries;
  } catch (error) {
    logger.warn(
      `stepwise worker: daily summary ${day} failed (${(error as Error).message}); the cron went on`,
    );
    return [];
  }
}

/** The day's figures per gateway and route (see `src/analytics/figures.ts` for definitions). */
export function dailySummarySql(dataset: string, since: number, until: number): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(dataset)) throw new RangeError(`bad dataset ${dataset}`);
  const answered = `${column.ok} = 1 OR (${column.status} >= 400 AND ${column.status} < 500 AND ${column.status} != 408 AND ${column.status} != 429)`;
  return [
    `SELECT ${column.gateway} AS gateway, ${column.route} AS route,`,
    `sum(${weight}) AS calls,`,
    `sum(if(${column.ok} = 1, ${weight}, 0)) AS ok,`,
    `sum(if(${answered}, ${weight}, 0)) AS answered,`,
    `sum(if(${column.step} >= 1, ${weight}, 0)) AS fallbacks,`,
    `sum(if(${column.cost} > 0, ${column.cost} * ${weight}, 0)) AS cost,`,
    `quantileExactWeighted(0.95)(${column.latencyMs}, ${weight}) AS p95`,
    // One row per call (its last attempt), however often the client re-sent it.
    `FROM (${callsSubquery(
      dataset,
      `${timestampColumn} >= toDateTime(${since / 1000}) AND ${timestampColumn} < toDateTime(${until / 1000}) AND ${callPointColumns.version} = ${callPointSchemaVersion}`,
    )})`,
    "GROUP BY gateway, route ORDER BY gateway, route",
    "FORMAT JSONEachRow",
  ].join("\n");
}

async function querySummaries(
  input: DailySummaryInput,
  since: number,
  until: number,
  day: string,
): Promise<DailySummary[]> {
  const base = (input.env.ANALYTICS_API_URL || "https://api.cloudflare.com/client/v4").replace(
    /\/+$/,
    "",
  );
  const response = await input.fetch(
    `${base}/accounts/${encodeURIComponent(input.accountId)}/analytics_engine/sql`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${input.env.ANALYTICS_API_TOKEN}` },
      body: dailySummarySql(input.env.EVENTS_DATASET || "stepwise_events", since, until),
    },
  );
  const text = await response.text();
  if (!response.ok) throw new Error(`SQL API answered HTTP ${response.status}`);
  const number = (value: unknown) => {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : 0;
  };
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const row = JSON.parse(line) as Record<string, unknown>;
      return {
        day,
        gateway: String(row.gateway ?? ""),
        route: String(row.route ?? ""),
        calls: number(row.calls),
        ok: number(row.ok),
        answered: number(row.answered),
        fallbacks: number(row.fallbacks),
        cost: number(row.cost),
        p95LatencyMs: row.p95 === null || row.p95 === undefined ? null : number(row.p95),
      };
    });
}
