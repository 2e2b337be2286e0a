/**
 * @module
 * A local stand-in for the Workers Analytics Engine SQL API that really runs the SQL it is sent:
 * the test's points go into an in-process ClickHouse (chDB) table with Analytics Engine's columns
 * (`dataset`, `timestamp`, `_sample_interval`, `index1`, `blob1`–`blob20`, `double1`–`double20`),
 * and each query's answer is what ClickHouse computes, so a test checks the SQL's answers, not its
 * text.
 *
 * It is stricter than the real API where the SQL reference says what is allowed: one `SELECT`
 * from one dataset, no `UNION`/`JOIN`/`WITH`, and only functions the reference documents (a query
 * using `multiIf` or `quantileExact` is refused). It checks `POST`, the path and the bearer token.
 * Guesses, not documented: errors come back as HTTP 422 with a plain-text message (401 for a bad
 * token), and 64-bit integers come back quoted in `JSONEachRow` (ClickHouse's default).
 *
 * Dialect note: chDB is ClickHouse itself, and Analytics Engine speaks ClickHouse's dialect, so no
 * translation is made. `quantileWeighted(q, x, w)`, an Analytics Engine-only spelling, would fail
 * here; the report uses `quantileExactWeighted(q)(x, w)`, which both accept.
 */
import { Session } from "chdb";
import {
  type CallPoint,
  type EncodedCallPoint,
  encodeCallPoint,
} from "../../src/worker/analytics-schema.ts";

/** Functions the Analytics Engine SQL reference documents (lower case). */
const documentedFunctions = new Set(
  [
    // aggregate
    "count sum avg min max quantileExactWeighted quantileWeighted argMax argMin first_value",
    "last_value topK topKWeighted countIf sumIf avgIf",
    // conditional, string, date and time, maths, conversion
    "if length empty lower lowerUTF8 upper upperUTF8 startsWith endsWith position substring",
    "format extract formatDateTime now today toDateTime toYear toMonth toDayOfWeek toDayOfMonth",
    "toHour toMinute toSecond toUnixTimestamp toStartOfInterval toStartOfYear toStartOfMonth",
    "toStartOfWeek toStartOfDay toStartOfHour toStartOfFifteenMinutes toStartOfTenMinutes",
    "toStartOfFiveMinutes toStartOfMinute toYYYYMM intDiv log ln pow round floor ceil toUInt8",
    "toUInt32",
  ]
    .join(" ")
    .split(" ")
    .map((name) => name.toLowerCase()),
);
/** Words that may stand before `(` without being a function call. */
const keywords = new Set(["in", "and", "or", "not", "from", "as", "interval", "by", "select"]);

/** One point as the SQL API stores it. */
export interface FakePoint {
  readonly time: number;
  readonly point: CallPoint | EncodedCallPoint;
  readonly sampleInterval?: number;
}

export interface FakeSqlApiOptions {
  readonly accountId: string;
  readonly apiToken: string;
  readonly dataset: string;
}

export interface FakeSqlApi {
  /** Pass as the report's `fetch`; the base URL is `http://sql-api.test/client/v4`. */
  readonly fetch: typeof globalThis.fetch;
  readonly baseURL: string;
  /** Every query received. */
  readonly queries: string[];
  /** Replaces the dataset's points. */
  load(points: readonly FakePoint[]): Promise<void>;
  close(): void;
}

let session: Session | null = null;

/** Starts a fake on a shared chDB session (one per test process). */
export function createFakeSqlApi(options: FakeSqlApiOptions): FakeSqlApi {
  session ??= new Session();
  const engine = session;
  const queries: string[] = [];
  const baseURL = "http://sql-api.test/client/v4";
  const path = `/client/v4/accounts/${options.accountId}/analytics_engine/sql`;
  const text = (status: number, body: string) =>
    new Response(body, { status, headers: { "content-type": "text/plain" } });

  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(typeof input === "string" ? input : input.toString());
    if (url.pathname !== path) return text(404, `no route ${url.pathname}`);
    if ((init?.method ?? "GET") !== "POST") return text(405, "use POST");
    const headers = new Headers(init?.headers);
    if (headers.get("authorization") !== `Bearer ${options.apiToken}`) {
      return text(401, "Authentication error");
    }
    const sql = String(init?.body ?? "");
    queries.push(sql);
    const refusal = refuse(sql, options.dataset);
    if (refusal) return text(422, refusal);
    try {
      const answer = engine.query(`${sql} SETTINGS output_format_json_quote_64bit_integers = 1`);
      return text(200, answer);
    } catch (error) {
      return text(422, (error as Error).message);
    }
  };

  return {
    fetch,
    baseURL,
    queries,
    async load(points) {
      engine.query(`DROP TABLE IF EXISTS ${options.dataset}`);
      const blobs = Array.from({ length: 20 }, (_, i) => `blob${i + 1} String`);
      const doubles = Array.from({ length: 20 }, (_, i) => `double${i + 1} Float64`);
      engine.query(
        `CREATE TABLE ${options.dataset} (dataset String, timestamp DateTime('UTC'), _sample_interval UInt32, index1 String, ${[...blobs, ...doubles].join(", ")}) ENGINE = Memory`,
      );
      const values = points.map((entry) => rowOf(entry, options.dataset));
      for (let start = 0; start < values.length; start += 10_000) {
        await engine.insert({
          table: options.dataset,
          values: values.slice(start, start + 10_000),
        });
      }
    },
    close() {
      engine.query(`DROP TABLE IF EXISTS ${options.dataset}`);
    },
  };
}

function rowOf(entry: FakePoint, dataset: string): Record<string, string | number> {
  const encoded = "indexes" in entry.point ? entry.point : encodeCallPoint(entry.point);
  const row: Record<string, string | number> = {
    dataset,
    timestamp: new Date(Math.floor(entry.time / 1000) * 1000)
      .toISOString()
      .slice(0, 19)
      .replace("T", " "),
    _sample_interval: entry.sampleInterval ?? 1,
    index1: encoded.indexes[0] ?? "",
  };
  for (let index = 0; index < 20; index += 1) {
    row[`blob${index + 1}`] = encoded.blobs[index] ?? "";
    row[`double${index + 1}`] = encoded.doubles[index] ?? 0;
  }
  return row;
}

/** Why the real API would refuse `sql` (per its SQL reference), or null. */
function refuse(sql: string, dataset: string): string | null {
  const code = sql.replace(/'(?:[^']|'')*'/g, "''");
  if (!/^\s*SELECT\b/i.test(code)) return "only SELECT statements are supported";
  if (/;\s*\S/.test(code)) return "send one statement per request";
  if (/\b(UNION|JOIN|WITH)\b/i.test(code)) return "UNION, JOIN and WITH are not supported";
  const tables = [...code.matchAll(/\bFROM\s+([A-Za-z_][A-Za-z0-9_]*)/gi)].map((m) => m[1]);
  if (tables.some((table) => table !== dataset)) {
    return `unknown dataset ${tables.find((table) => table !== dataset)}`;
  }
  for (const match of code.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
    const name = (match[1] ?? "").toLowerCase();
    if (keywords.has(name)) continue;
    if (!documentedFunctions.has(name)) return `function ${match[1]} is not supported`;
  }
  return null;
}
