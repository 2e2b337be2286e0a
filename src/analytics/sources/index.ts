/**
 * @module
 * Event sources: events files (JSON lines), the gateway's logs through the `cloudflare` SDK,
 * and Workers Analytics Engine SQL exports.
 */
export {
  type AnalyticsEngineOptions,
  analyticsEngineSource,
  rowToEvent,
} from "./analytics-engine.ts";
export { csvField, isRecordComplete, parseCsvRecord } from "./csv.ts";
export { type EventsFileOptions, eventsFileSource } from "./events-file.ts";
export {
  type GatewayLog,
  type GatewayLogsOptions,
  gatewayLogSchema,
  gatewayLogsSource,
  logToEvent,
} from "./gateway-logs.ts";
export type { LineInputOptions } from "./read-lines.ts";
export {
  type AggregatingSource,
  defaultMalformedSamples,
  type EventSource,
  type MalformedRecord,
  type ReportSource,
  type SourceKind,
  type SourceStats,
  SourceTally,
} from "./types.ts";
