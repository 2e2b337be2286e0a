/**
 * @module
 * What a live Analytics Engine report fetches: a month of call points goes into the SQL API fake
 * (DuckDB running the SQL the report sends), a 30-day report with the default grouping and
 * automatic buckets is built through it, and the bytes and rows that came back are set against
 * what exporting the points themselves would fetch.
 */

import { buildReport } from "../../src/analytics/report.ts";
import { analyticsEngineSqlSource } from "../../src/analytics/sql/live-source.ts";
import { createFakeSqlApi } from "../fakes/analytics-engine-sql-api.ts";
import { callPointOf } from "../fakes/call-points.ts";
import { generateEvents } from "../scripts/generate-events.ts";

export interface SqlVolume {
  readonly points: number;
  readonly calls: number;
  readonly requests: number;
  readonly rows: number;
  readonly bytes: number;
  readonly exportBytes: number;
  readonly bucket: string;
}

const day = 86_400_000;

/** Builds a 30-day report over `points` points (every 4th sampled at 1 in 10) and measures it. */
export async function measureSqlVolume(points: number): Promise<SqlVolume> {
  const accountId = "0123456789abcdef0123456789abcdef";
  const start = Date.parse("2026-05-01T00:00:00Z");
  const sql = createFakeSqlApi({ accountId, apiToken: "bench", dataset: "stepwise_events" });
  try {
    let calls = 0;
    const rows = [...generateEvents({ count: points, seed: 30, start, spanMs: 30 * day })].map(
      (event, index) => {
        const sampleInterval = index % 4 === 0 ? 10 : 1;
        calls += sampleInterval;
        return { time: Date.parse(event.time), point: callPointOf(event), sampleInterval };
      },
    );
    await sql.load(rows);
    const source = analyticsEngineSqlSource({
      accountId,
      apiToken: "bench",
      baseURL: sql.baseURL,
      fetch: sql.fetch,
    });
    const report = await buildReport(source, {
      window: { since: start, until: start + 30 * day },
    });
    if (report.counted !== calls) {
      throw new Error(`the 30-day report counted ${report.counted} calls, not ${calls}`);
    }
    const exported = await sql.fetch(`${sql.baseURL}/accounts/${accountId}/analytics_engine/sql`, {
      method: "POST",
      headers: { authorization: "Bearer bench" },
      body: "SELECT * FROM stepwise_events FORMAT JSONEachRow",
    });
    return {
      points,
      calls,
      requests: source.stats.requests ?? 0,
      rows: source.stats.records,
      bytes: source.stats.bytesFetched ?? 0,
      exportBytes: Buffer.byteLength(await exported.text()),
      bucket: report.series.bucket,
    };
  } finally {
    sql.close();
  }
}
