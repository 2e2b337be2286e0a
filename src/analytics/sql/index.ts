/**
 * @module
 * The live Analytics Engine source: SQL built from the call-point schema, sent to the SQL API,
 * aggregated on Cloudflare's side.
 */
export {
  bucketExpression,
  callsTable,
  countSelections,
  dimensionExpression,
  groupedQuery,
  type QueryScope,
  quantileSelections,
  spanQuery,
  sqlString,
} from "./call-point-sql.ts";
export {
  type AnalyticsEngineSqlOptions,
  analyticsEngineSqlSource,
  defaultDataset,
} from "./live-source.ts";
export { cloudflareApiBase, SqlApiClient, type SqlApiOptions, type SqlRow } from "./sql-api.ts";
