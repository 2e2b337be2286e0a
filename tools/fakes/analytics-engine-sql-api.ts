/**
 * @module
 * A local stand-in for the Workers Analytics Engine SQL API that really runs the SQL it is sent:
 * the test's points go into an in-process DuckDB table with Analytics Engine's columns
 * (`dataset`, `timestamp`, `_sample_interval`, `index1`, `blob1`–`blob20`, `double1`–`double20`),
 * and each query's answer is what the database computes, so a test checks the SQL's answers, not
 * its text.
 *
 * It is stricter than the real API where the SQL reference says what is allowed: one `SELECT`
 * from one dataset (directly or through a subquery in `FROM`: "FROM <table_name>|(subquery)"),
 * no `UNION`/`JOIN`/`WITH`, and only functions the reference documents (a query
 * using `multiIf` or `quantileExact` is refused). It checks `POST`, the path and the bearer token.
 * Guesses, not documented: errors come back as HTTP 422 with a plain-text message (401 for a bad
 * token), and answers are ClickHouse's `JSONEachRow` with its default settings (64-bit integers
 * quoted), the only format the fake writes.
 *
 * Dialect note: Analytics Engine speaks ClickHouse's dialect; DuckDB runs the query here. The SQL
 * the report sends reaches DuckDB as sent, except for the mappings in `clickhouse-dialect.ts`:
 * DuckDB macros give `startsWith`, `substring`, `toDateTime`, `toUnixTimestamp`,
 * `toStartOfInterval`, `sum`, `min` and `max` their ClickHouse meaning under their ClickHouse
 * names; the parametric `quantileExactWeighted(level)(x, w)` is rewritten to a macro over
 * ClickHouse's algorithm transcribed in TypeScript; the closing `FORMAT JSONEachRow` is written by
 * the fake. The filters, groupings, weights and arithmetic are the report's own, so the answers
 * prove the SQL; a function the fake does not translate is refused (422) rather than run with
 * DuckDB's meaning. Known differences, which the report's SQL does not meet: DuckDB orders NaN
 * above every number (ClickHouse's comparisons with NaN are false), and identifiers are not
 * case-sensitive here.
 */
import {
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBInstance,
  DuckDBTimestampValue,
} from "@duckdb/node-api";
import {
  type CallPoint,
  type EncodedCallPoint,
  encodeCallPoint,
} from "../../src/worker/analytics-schema.ts";
import {
  blankStrings,
  clickHouseJsonLine,
  DialectError,
  registerClickHouseDialect,
  toDuckDbSql,
  translatedFunctions,
} from "./clickhouse-dialect.ts";

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

/** Starts a fake on its own in-memory DuckDB database. */
export function createFakeSqlApi(options: FakeSqlApiOptions): FakeSqlApi {
  const database = openDatabase();
  // A failure to open surfaces on the first load or query; never as an unhandled rejection.
  database.catch(() => undefined);
  // One statement at a time on the connection, also when a caller sends queries in parallel.
  let busy: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(task: (connection: DuckDBConnection) => Promise<T>): Promise<T> => {
    const run = busy.then(async () => task((await database).connection));
    busy = run.catch(() => undefined);
    return run;
  };
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
      const translated = toDuckDbSql(sql);
      if (translated.format?.toLowerCase() !== "jsoneachrow") {
        return text(422, "this fake writes FORMAT JSONEachRow only: end the query with it");
      }
      const lines = await exclusive(async (connection) => {
        const written: string[] = [];
        const result = await connection.stream(translated.sql);
        for await (const rows of result.yieldRowObjectJs()) {
          written.push(rows.map((row) => `${clickHouseJsonLine(row)}\n`).join(""));
        }
        return written;
      });
      return text(200, lines.join(""));
    } catch (error) {
      const message = (error as Error).message;
      if (error instanceof DialectError) return text(422, message);
      if (message.includes("Failure in decode")) {
        return text(422, `substring cut a UTF-8 character: ClickHouse counts bytes (${message})`);
      }
      return text(422, `DuckDB: ${message}`);
    }
  };

  return {
    fetch,
    baseURL,
    queries,
    load: (points) =>
      exclusive(async (connection) => {
        await connection.run(`DROP TABLE IF EXISTS ${options.dataset}`);
        const blobs = Array.from({ length: 20 }, (_, i) => `blob${i + 1} VARCHAR`);
        const doubles = Array.from({ length: 20 }, (_, i) => `double${i + 1} DOUBLE`);
        await connection.run(
          `CREATE TABLE ${options.dataset} (dataset VARCHAR, timestamp TIMESTAMP, _sample_interval UINTEGER, index1 VARCHAR, ${[...blobs, ...doubles].join(", ")})`,
        );
        const appender = await connection.createAppender(options.dataset);
        try {
          for (const entry of points) appendRow(appender, entry, options.dataset);
        } finally {
          appender.closeSync();
        }
      }),
    close() {
      // After the statements already sent.
      busy = busy.then(async () => {
        const { connection, instance } = await database;
        connection.closeSync();
        instance.closeSync();
      });
      busy.catch(() => undefined);
    },
  };
}

async function openDatabase(): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  await registerClickHouseDialect(connection);
  return { instance, connection };
}

/** One point as a row, in the table's column order. */
function appendRow(appender: DuckDBAppender, entry: FakePoint, dataset: string): void {
  const encoded = "indexes" in entry.point ? entry.point : encodeCallPoint(entry.point);
  appender.appendVarchar(dataset);
  // Analytics Engine stamps whole seconds.
  const seconds = BigInt(Math.floor(entry.time / 1000));
  appender.appendTimestamp(new DuckDBTimestampValue(seconds * 1_000_000n));
  appender.appendUInteger(entry.sampleInterval ?? 1);
  appender.appendVarchar(encoded.indexes[0] ?? "");
  for (let index = 0; index < 20; index += 1) appender.appendVarchar(encoded.blobs[index] ?? "");
  for (let index = 0; index < 20; index += 1) appender.appendDouble(encoded.doubles[index] ?? 0);
  appender.endRow();
}

/** Why the real API (or this fake) would refuse `sql`, or null. */
function refuse(sql: string, dataset: string): string | null {
  const code = blankStrings(sql);
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
    if (!translatedFunctions.has(name)) {
      return `function ${match[1]} is in the SQL reference, but this fake does not translate it to DuckDB yet (tools/fakes/clickhouse-dialect.ts)`;
    }
  }
  return null;
}
