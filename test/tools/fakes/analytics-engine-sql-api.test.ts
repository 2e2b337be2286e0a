/**
 * The SQL API fake answers ClickHouse's dialect with ClickHouse's meaning although DuckDB runs
 * it (tools/fakes/clickhouse-dialect.ts): each answer here is computed by hand from ClickHouse's
 * definitions, so a mapping that drifted (a quantile rank, a bucket origin, characters counted
 * instead of bytes, NULL where ClickHouse answers 0) fails.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeSqlApi, type FakePoint } from "../../../tools/fakes/analytics-engine-sql-api.ts";
import { quantileExactWeighted } from "../../../tools/fakes/clickhouse-dialect.ts";

const accountId = "0123456789abcdef0123456789abcdef";
const apiToken = "dialect-test";
const fake = createFakeSqlApi({ accountId, apiToken, dataset: "calls" });
const may1 = Date.parse("2026-05-01T00:00:00Z") / 1000;

/** A point with a group in blob1, a text in blob11, a latency in double3 and a weight. */
function point(group: string, latency: number, weight: number, time = may1, text = ""): FakePoint {
  return {
    time: time * 1000,
    point: {
      indexes: [group],
      blobs: [group, ...Array(9).fill(""), text],
      doubles: [0, 0, latency],
    },
    sampleInterval: weight,
  };
}

async function query(sql: string) {
  const response = await fake.fetch(`${fake.baseURL}/accounts/${accountId}/analytics_engine/sql`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiToken}` },
    body: sql,
  });
  const text = await response.text();
  const rows =
    response.status === 200
      ? text
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>)
      : [];
  return { status: response.status, text, rows };
}

beforeAll(async () => {
  await fake.load([
    // Group a: 10 ×1, 20 ×3, 30 ×1, 40 ×5 (weight 10 in all), sent out of order.
    point("a", 40, 5),
    point("a", 20, 3),
    point("a", 10, 1),
    point("a", 30, 1),
    // Group b: one value.
    point("b", 7, 2, may1 + 7 * 3600, "plän=pro"),
  ]);
});
afterAll(() => fake.close());

describe("the SQL API fake speaks ClickHouse's dialect", () => {
  it("quantileExactWeighted(level)(x, w): the first value whose running weight reaches ceil(total × level)", async () => {
    const { rows } = await query(
      [
        "SELECT blob1 AS g,",
        "quantileExactWeighted(0)(double3, _sample_interval) AS q0,",
        "quantileExactWeighted(0.1)(double3, _sample_interval) AS q10,",
        "quantileExactWeighted(0.4)(double3, _sample_interval) AS q40,",
        "quantileExactWeighted(0.41)(double3, _sample_interval) AS q41,",
        "quantileExactWeighted(double3, _sample_interval) AS median,",
        "quantileExactWeighted(0.95)(double3, _sample_interval) AS q95",
        "FROM calls GROUP BY g ORDER BY g FORMAT JSONEachRow",
      ].join(" "),
    );
    // Group a, sorted: 10 (running weight 1), 20 (4), 30 (5), 40 (10). Thresholds: 0.4 → 4 (20),
    // 0.41 → ceil(4.1) = 5 (30), 0.5 → 5 (30), 0.95 → ceil(9.5) = 10 (40); level 0 → the first.
    expect(rows).toEqual([
      { g: "a", q0: 10, q10: 10, q40: 20, q41: 30, median: 30, q95: 40 },
      { g: "b", q0: 7, q10: 7, q40: 7, q41: 7, median: 7, q95: 7 },
    ]);
  });

  it("quantileExactWeighted counts each value as if it were there weight times (ClickHouse's definition)", () => {
    const rows = fc.array(
      fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 6 })),
      {
        minLength: 1,
        maxLength: 40,
      },
    );
    fc.assert(
      fc.property(rows, fc.double({ min: 0, max: 1, noNaN: true }), (pairs, level) => {
        const repeated = pairs
          .flatMap(([value, weight]) => Array<number>(weight).fill(value))
          .sort((a, b) => a - b);
        const rank = Math.max(1, Math.ceil(repeated.length * level));
        const values = pairs.map(([value]) => value);
        const weights = pairs.map(([, weight]) => weight);
        expect(quantileExactWeighted(values, weights, level)).toBe(repeated[rank - 1]);
      }),
    );
    expect(quantileExactWeighted([Number.NaN, 3], [9, 1], 0.5)).toBe(3);
    expect(quantileExactWeighted([], [], 0.5)).toBeNaN();
  });

  it("argMax picks the arg of the row with the largest val, and FROM takes a subquery", async () => {
    // The SQL reference: "argMax is an aggregation function that returns the arg value that
    // corresponds to the maximum value of val", and "FROM <table_name>|(subquery)".
    const { status, rows } = await query(
      "SELECT group_name, latest FROM (SELECT blob1 AS group_name, argMax(double3, _sample_interval) AS latest FROM calls GROUP BY blob1) FORMAT JSONEachRow",
    );
    expect(status).toBe(200);
    expect(
      [...rows].sort((x, y) => String(x.group_name).localeCompare(String(y.group_name))),
    ).toEqual([
      { group_name: "a", latest: 40 },
      { group_name: "b", latest: 7 },
    ]);
  });

  it("aggregates over no rows answer ClickHouse's defaults: 0, 1970, and null for a quantile", async () => {
    const { rows } = await query(
      "SELECT sum(_sample_interval) AS calls, count() AS n, toUnixTimestamp(min(timestamp)) AS first_time, max(blob1) AS last_group, quantileExactWeighted(0.5)(double3, _sample_interval) AS p50 FROM calls WHERE blob1 = 'none' FORMAT JSONEachRow",
    );
    expect(rows).toEqual([{ calls: "0", n: "0", first_time: 0, last_group: "", p50: null }]);
  });

  it("toStartOfInterval aligns buckets on the Unix epoch, and toDateTime reads seconds or text", async () => {
    const { rows } = await query(
      "SELECT toUnixTimestamp(toStartOfInterval(timestamp, INTERVAL '604800' SECOND)) AS week, toUnixTimestamp(toStartOfInterval(timestamp, INTERVAL '25200' SECOND)) AS seven_hours, sum(_sample_interval) AS calls FROM calls WHERE timestamp >= toDateTime(" +
        `${may1}) AND timestamp < toDateTime('2026-05-02 00:00:00') GROUP BY week, seven_hours ORDER BY seven_hours FORMAT JSONEachRow`,
    );
    // Weeks from 1970-01-01 (a Thursday): 2026-05-01 falls in the week from Thursday 30 April.
    // Seven-hour buckets from the epoch: 1777593600 is 70,539 × 25,200 + 10,800, so midnight is
    // in the bucket from 21:00 the day before, and 07:00 in the next one, from 04:00.
    expect(rows).toEqual([
      { week: may1 - 86_400, seven_hours: may1 - 10_800, calls: "10" },
      { week: may1 - 86_400, seven_hours: may1 + 14_400, calls: "2" },
    ]);
  });

  it("substring counts bytes, as ClickHouse does; startsWith and comparisons answer 1 or 0", async () => {
    const { rows } = await query(
      "SELECT substring(blob11, 7) AS value, substring(blob11, 1, 4) AS head, startsWith(blob11, 'plän=') AS keyed, double3 > 5 AS slow FROM calls WHERE blob1 = 'b' FORMAT JSONEachRow",
    );
    // "plän=" is 6 bytes (ä is two): the value starts at byte 7, and "plä" is 4 bytes long.
    expect(rows).toEqual([{ value: "pro", head: "pl\u00e4", keyed: 1, slow: 1 }]);
    const cut = await query(
      "SELECT substring(blob11, 4) AS value FROM calls WHERE blob1 = 'b' FORMAT JSONEachRow",
    );
    expect(cut.status).toBe(422);
    expect(cut.text).toMatch(/UTF-8 character: ClickHouse counts bytes/);
  });

  it("keeps the SQL text as sent, and refuses what Analytics Engine or the fake cannot run", async () => {
    const sent = "SELECT sum(_sample_interval) AS calls FROM calls FORMAT JSONEachRow";
    expect((await query(sent)).rows).toEqual([{ calls: "12" }]);
    expect(fake.queries.at(-1)).toBe(sent);
    const refusals: Array<[string, RegExp]> = [
      ["SELECT multiIf(double3 > 0, 1, 0) AS x FROM calls FORMAT JSONEachRow", /multiIf/],
      ["SELECT toYear(timestamp) AS y FROM calls FORMAT JSONEachRow", /does not translate/],
      ["SELECT 1 AS x FROM calls JOIN calls ON 1 = 1 FORMAT JSONEachRow", /JOIN/],
      ["SELECT 1 AS x FROM calls", /FORMAT JSONEachRow only/],
      ["SELECT 1 AS x FROM events FORMAT JSONEachRow", /unknown dataset events/],
    ];
    for (const [sql, reason] of refusals) {
      const { status, text } = await query(sql);
      expect(status, sql).toBe(422);
      expect(text, sql).toMatch(reason);
    }
    // A function's name inside a string literal is text, not a call.
    const { rows } = await query(
      "SELECT count() AS n FROM calls WHERE blob11 != 'multiIf(quantileExactWeighted(1)(x))' FORMAT JSONEachRow",
    );
    expect(rows).toEqual([{ n: "5" }]);
  });
});
