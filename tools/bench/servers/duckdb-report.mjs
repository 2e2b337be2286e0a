/**
 * @module
 * The report benchmark's anchor: DuckDB over the same events file, as an analyst would ask it,
 * in a process of its own (plain `node`, no TypeScript loader, so no start-up is charged to it).
 * `read_ndjson` with the columns the report reads (no schema sampling), then one GROUP BY over
 * gateway, route, step, provider and model: calls, successes, tokens, cost, cache hits and exact
 * latency percentiles (`quantile_disc`), as `stepwise report` computes them. Prints one JSON line:
 * `{ "calls": <events counted>, "groups": [...] }`.
 *
 * Usage: node tools/bench/servers/duckdb-report.mjs <events.jsonl> [--threads 1]
 */
import { DuckDBInstance } from "@duckdb/node-api";

const [file, flag, value] = process.argv.slice(2);
if (file === undefined || (flag !== undefined && flag !== "--threads")) {
  console.error("Usage: node tools/bench/servers/duckdb-report.mjs <events.jsonl> [--threads N]");
  process.exit(2);
}
const threads = flag === "--threads" ? Number(value) : 1;
const quoted = `'${file.replaceAll("'", "''")}'`;
const sql = `
  SELECT gateway, route, step, provider, model,
         count(*)::BIGINT AS calls,
         count(*) FILTER (WHERE ok)::BIGINT AS successes,
         sum(tokensIn)::BIGINT AS tokens_in,
         sum(tokensOut)::BIGINT AS tokens_out,
         sum(cost) AS cost,
         count(*) FILTER (WHERE cacheStatus = 'HIT')::BIGINT AS cache_hits,
         quantile_disc(latencyMs, [0.5, 0.95, 0.99]) AS latency
  FROM read_ndjson(${quoted}, columns = {
    gateway: 'VARCHAR', route: 'VARCHAR', step: 'INTEGER', provider: 'VARCHAR',
    model: 'VARCHAR', ok: 'BOOLEAN', cacheStatus: 'VARCHAR', latencyMs: 'DOUBLE',
    tokensIn: 'BIGINT', tokensOut: 'BIGINT', cost: 'DOUBLE'
  })
  GROUP BY ALL
  ORDER BY ALL`;

const instance = await DuckDBInstance.create(":memory:", { threads: String(threads) });
const connection = await instance.connect();
const reader = await connection.runAndReadAll(sql);
const groups = reader.getRowObjectsJson();
const calls = groups.reduce((sum, group) => sum + Number(group.calls), 0);
process.stdout.write(`${JSON.stringify({ calls, groups })}\n`);
connection.closeSync();
instance.closeSync();
