/**
 * @module
 * The one place where the Analytics Engine SQL API fake maps ClickHouse's dialect (which
 * Analytics Engine speaks) to DuckDB's (which runs the query here). The SQL text the report sends
 * is not rewritten beyond what is listed below; everything else (columns, `WHERE`, `GROUP BY`,
 * `IN`, arithmetic, comparisons, `INTERVAL '60' SECOND`) means the same in both and is passed on
 * as sent.
 *
 * Macros (created by {@link registerClickHouseDialect}, once per database) give ClickHouse's
 * functions their ClickHouse meaning under their ClickHouse names:
 *
 * | ClickHouse                         | DuckDB                                              |
 * | ---------------------------------- | --------------------------------------------------- |
 * | `startsWith(s, p)`                 | `starts_with(s, p)`                                 |
 * | `substring(s, o[, n])`, in bytes   | a slice of `encode(s)` (DuckDB's counts characters) |
 * | `toDateTime(seconds or text)`      | `make_timestamp(seconds × 10⁶)`, or a cast          |
 * | `toUnixTimestamp(t)`               | `epoch(t)` as UINTEGER (ClickHouse's UInt32)        |
 * | `toStartOfInterval(t, INTERVAL …)` | `time_bucket(…, t, TIMESTAMP '1970-01-01')`         |
 * | `sum`, `min`, `max` over no rows   | 0 or the column type's default (not NULL)           |
 *
 * Rewritten in the text, because a macro cannot take ClickHouse's parametric form:
 * `quantileExactWeighted(level)(x, w)` (or `quantileExactWeighted(x, w)`, level 0.5) becomes
 * `clickhouse_quantile_exact_weighted(level, x, w)`, a macro that hands each group's values and
 * weights to {@link quantileExactWeighted}, ClickHouse's algorithm transcribed (registered as a
 * DuckDB scalar function). And the closing `FORMAT JSONEachRow` is cut off: the fake writes that
 * format itself ({@link clickHouseJsonLine}).
 *
 * Functions not in {@link translatedFunctions} are refused by the fake rather than run with
 * DuckDB's meaning, so a query cannot pass here on a function that behaves differently on
 * Cloudflare.
 */
import {
  DOUBLE,
  type DuckDBConnection,
  type DuckDBDoubleVector,
  type DuckDBListVector,
  DuckDBScalarFunction,
  type DuckDBStructVector,
  LIST,
  STRUCT,
} from "@duckdb/node-api";

/** Functions (lower case) the fake runs with ClickHouse's meaning: macros, rewrites or the same. */
export const translatedFunctions: ReadonlySet<string> = new Set([
  // same meaning in both ("argMax … returns the arg value that corresponds to the maximum value
  // of val. If multiple arg values have the maximum value of val, any one will be returned.":
  // DuckDB's `argmax` is its `arg_max`, the same)
  "if",
  "count",
  "argmax",
  // macros and the rewrite below
  "sum",
  "min",
  "max",
  "startswith",
  "substring",
  "todatetime",
  "tounixtimestamp",
  "tostartofinterval",
  "quantileexactweighted",
]);

/** Gives ClickHouse's functions their meaning on `connection`'s database (see the module doc). */
export async function registerClickHouseDialect(connection: DuckDBConnection): Promise<void> {
  connection.registerScalarFunction(quantileFunction());
  for (const macro of clickHouseMacros) await connection.run(macro);
}

/**
 * ClickHouse's `quantileExactWeighted(level)(value, weight)` (QuantileExactWeighted::get, without
 * interpolation): NaN values are skipped, equal values merged, the rest sorted by value, and the
 * answer is the first value at which the running weight reaches `ceil(total weight × level)`, or
 * the last value if it never does. NaN (written `null`) when there is no value.
 */
export function quantileExactWeighted(
  values: ArrayLike<number>,
  weights: ArrayLike<number>,
  level: number,
): number {
  const merged = new Map<number, number>();
  let total = 0;
  for (let index = 0; index < values.length; index += 1) {
    const value = values[index] ?? Number.NaN;
    const weight = weights[index] ?? 0;
    if (Number.isNaN(value)) continue;
    merged.set(value, (merged.get(value) ?? 0) + weight);
    total += weight;
  }
  const sorted = [...merged].sort(([a], [b]) => a - b);
  const threshold = Math.ceil(total * level);
  let reached = 0;
  for (const [value, weight] of sorted) {
    reached += weight;
    if (reached >= threshold) return value;
  }
  return sorted.at(-1)?.[0] ?? Number.NaN;
}

/** `clickhouse_quantile_exact_weighted_of(list of {value, weight}, level)`, one group a row. */
function quantileFunction(): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name: "clickhouse_quantile_exact_weighted_of",
    returnType: DOUBLE,
    parameterTypes: [LIST(STRUCT({ value: DOUBLE, weight: DOUBLE })), DOUBLE],
    mainFunction: (_info, input, output) => {
      const lists = input.getColumnVector(0) as DuckDBListVector;
      const levels = input.getColumnVector(1) as DuckDBDoubleVector;
      const entries = lists.childVector as DuckDBStructVector;
      const values = entries.entryVectorAt(0) as DuckDBDoubleVector;
      const weights = entries.entryVectorAt(1) as DuckDBDoubleVector;
      for (let row = 0; row < input.rowCount; row += 1) {
        const start = lists.getEntryOffset(row);
        const length = lists.getEntryLength(row);
        const group = { values: new Float64Array(length), weights: new Float64Array(length) };
        for (let index = 0; index < length; index += 1) {
          group.values[index] = values.getItem(start + index) ?? Number.NaN;
          group.weights[index] = weights.getItem(start + index) ?? 0;
        }
        output.setItem(
          row,
          quantileExactWeighted(group.values, group.weights, levels.getItem(row) ?? 0.5),
        );
      }
      output.flush();
    },
  });
}

/** DuckDB macros that give ClickHouse's functions their meaning (see the module doc). */
const clickHouseMacros: readonly string[] = [
  "CREATE MACRO startsWith(s, p) AS starts_with(s, p)",
  // ClickHouse counts bytes; offset 0 is an empty string, a negative offset counts from the end.
  `CREATE MACRO substring(s, o) AS CASE WHEN o = 0 THEN '' ELSE decode(encode(s)[o:]) END,
     (s, o, n) AS CASE WHEN o = 0 OR n <= 0 THEN '' ELSE decode(encode(s)[o:o + n - 1]) END`,
  `CREATE MACRO toDateTime(seconds DOUBLE) AS
     make_timestamp(CAST(trunc(seconds) AS BIGINT) * 1000000), (text VARCHAR) AS CAST(text AS TIMESTAMP)`,
  "CREATE MACRO toUnixTimestamp(t) AS CAST(floor(epoch(t)) AS UINTEGER)",
  `CREATE MACRO toStartOfInterval(t, step) AS
     time_bucket(step, t, TIMESTAMP '1970-01-01 00:00:00')`,
  // The default of each column type Analytics Engine has, for aggregates over no rows.
  `CREATE MACRO clickhouse_default(x TIMESTAMP) AS TIMESTAMP '1970-01-01 00:00:00',
     (x DOUBLE) AS CAST(0 AS DOUBLE), (x VARCHAR) AS '', (x UINTEGER) AS CAST(0 AS UINTEGER)`,
  "CREATE MACRO sum(x) AS coalesce(system.main.sum(x), 0)",
  "CREATE MACRO min(x) AS coalesce(system.main.min(x), clickhouse_default(x))",
  "CREATE MACRO max(x) AS coalesce(system.main.max(x), clickhouse_default(x))",
  `CREATE MACRO clickhouse_quantile_exact_weighted(level, x, w) AS clickhouse_quantile_exact_weighted_of(
     list({'value': CAST(x AS DOUBLE), 'weight': CAST(w AS DOUBLE)}), level)`,
];

/** A query the fake cannot translate, and why (the fake answers it with a 422). */
export class DialectError extends Error {}

/** The DuckDB text of a ClickHouse query, and the output format it asked for. */
export interface TranslatedQuery {
  readonly sql: string;
  readonly format: string | null;
}

/** Applies the rewrites of the module doc to `sql` (whose functions were already checked). */
export function toDuckDbSql(sql: string): TranslatedQuery {
  let text = sql;
  let code = blankStrings(text);
  const format = /\bFORMAT\s+([A-Za-z]+)\s*;?\s*$/i.exec(code);
  if (format) {
    text = text.slice(0, format.index);
    code = code.slice(0, format.index);
  }
  const parts: string[] = [];
  let copied = 0;
  for (const match of code.matchAll(/\bquantileExactWeighted\s*\(/gi)) {
    if (match.index < copied) continue;
    const first = groupAt(code, match.index + match[0].length - 1);
    const afterFirst = code.slice(first.end).match(/^\s*\(/);
    const second = afterFirst ? groupAt(code, first.end + afterFirst[0].length - 1) : null;
    const level = second ? text.slice(first.start, first.end - 1).trim() : "0.5";
    const args = text.slice((second ?? first).start, (second ?? first).end - 1);
    parts.push(text.slice(copied, match.index));
    parts.push(`clickhouse_quantile_exact_weighted(${level}, ${args})`);
    copied = (second ?? first).end;
  }
  parts.push(text.slice(copied));
  return { sql: parts.join(""), format: format?.[1] ?? null };
}

/**
 * One row as a line of ClickHouse's `JSONEachRow` with its default settings: 64-bit integers
 * (here: DuckDB's BIGINT and HUGEINT, handed over as bigint) quoted, NaN and infinities `null`,
 * booleans `1`/`0` (ClickHouse's comparisons answer UInt8), date-times `YYYY-MM-DD hh:mm:ss`.
 */
export function clickHouseJsonLine(row: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(clickHouseValue(row));
}

function clickHouseValue(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString().slice(0, 19).replace("T", " ");
  if (Array.isArray(value)) return value.map(clickHouseValue);
  if (value === null || typeof value !== "object") return value;
  const converted: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) converted[name] = clickHouseValue(inner);
  return converted;
}

/** `sql` with the inside of every string literal blanked (same length), so code can be searched. */
export function blankStrings(sql: string): string {
  return sql.replace(/'(?:[^'\\]|''|\\.)*'/g, (literal) => `'${" ".repeat(literal.length - 2)}'`);
}

/** The parenthesised group opening at `open`: where its inside starts and where it ends. */
function groupAt(code: string, open: number): { start: number; end: number } {
  let depth = 0;
  for (let index = open; index < code.length; index += 1) {
    if (code[index] === "(") depth += 1;
    if (code[index] === ")") depth -= 1;
    if (depth === 0) return { start: open + 1, end: index + 1 };
  }
  throw new DialectError("unbalanced parentheses");
}
