/**
 * @module
 * One run read three ways, for the end-to-end tests that hold the sources to one truth: the
 * client's events (as a source), the gateway's logs (through the `cloudflare` SDK against the
 * emulator's REST subset) and Analytics Engine points (through the SQL API fake, which runs the
 * report's SQL in DuckDB), with the figures per route the three must agree on.
 */
import {
  analyticsEngineSqlSource,
  buildReport,
  gatewayLogsSource,
  type Report,
  type ReportSource,
} from "../../src/analytics/index.ts";
import type { EventSource } from "../../src/analytics/sources/types.ts";
import type { CallEvent } from "../../src/client/event.ts";
import type { CallPoint, EncodedCallPoint } from "../../src/worker/analytics-schema.ts";
import { createFakeSqlApi, type FakeSqlApi } from "../../tools/fakes/analytics-engine-sql-api.ts";

/** The client's events as a report source. */
export function memorySource(events: readonly CallEvent[]): ReportSource {
  return {
    kind: "events",
    name: "memory",
    stats: { records: events.length, malformed: 0, malformedSamples: [] },
    async *events() {
      yield* events;
    },
  };
}

/** Per route: the figures the sources must agree on (with `money`, tokens and cost too). */
export function perRoute(report: Report, money = false) {
  return Object.fromEntries(
    report.routes.map((row) => [
      `${row.key.gateway}/${row.key.route}`,
      {
        calls: row.figures.calls,
        steps: row.figures.steps,
        availability: row.figures.availability,
        fallbackRate: row.figures.fallbackRate,
        successRate: row.figures.successRate,
        ...(money
          ? {
              tokensIn: row.figures.tokensIn,
              tokensOut: row.figures.tokensOut,
              cost: Math.round(row.figures.cost * 1e9) / 1e9,
            }
          : {}),
      },
    ]),
  );
}

/** The gateway's logs of `gatewayId` on the emulator, as a source (calls joined by event id). */
export function emulatorLogsSource(
  accountId: string,
  gatewayId: string,
  emulator: { readonly restUrl: string; readonly gatewayToken: string },
): EventSource {
  return gatewayLogsSource({
    accountId,
    gatewayId,
    // The emulator's REST API checks its token, as Cloudflare's does.
    apiToken: emulator.gatewayToken,
    baseURL: emulator.restUrl,
    perPage: 5,
  });
}

/** A fake SQL API holding `points`, and the live Analytics Engine source over it. */
export async function analyticsEngineOver(
  accountId: string,
  points: ReadonlyArray<{ time: number; point: CallPoint | EncodedCallPoint }>,
): Promise<{ sql: FakeSqlApi; source: ReportSource }> {
  const sql = createFakeSqlApi({
    accountId,
    apiToken: "analytics-token",
    dataset: "stepwise_events",
  });
  await sql.load(points);
  const source = analyticsEngineSqlSource({
    accountId,
    apiToken: "analytics-token",
    baseURL: sql.baseURL,
    fetch: sql.fetch,
  });
  return { sql, source };
}

/** The three reports of one run. */
export async function reportsOf(sources: {
  events: ReportSource;
  logs: ReportSource;
  analyticsEngine: ReportSource;
}): Promise<{ events: Report; logs: Report; analyticsEngine: Report }> {
  return {
    events: await buildReport(sources.events),
    logs: await buildReport(sources.logs),
    analyticsEngine: await buildReport(sources.analyticsEngine),
  };
}
