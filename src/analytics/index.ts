/**
 * @module
 * Step-rate analytics: which step of each route served how often, with availability, fallback
 * rate, latency percentiles, tokens, cost and cache hits, per gateway, route, step, provider and
 * model, and the client's steering (skipped and demoted steps, hedges) per route and step, over
 * a window, in time buckets and against a baseline window. Reads events files, gateway logs (via
 * the `cloudflare` SDK) and Analytics Engine exports in one streaming pass.
 *
 * @example
 * ```ts
 * import { buildReport, eventsFileSource, renderTable } from "./src/analytics/index.ts";
 * const report = await buildReport(eventsFileSource("events.jsonl"), { dimensions: ["route", "step"] });
 * console.log(renderTable(report));
 * ```
 */
export {
  type Aggregate,
  type AggregateOptions,
  type AnalyticsEvent,
  aggregateEvents,
  allDimensions,
  type Dimension,
  type GroupKey,
  type GroupRow,
  type SeriesPoint,
  StepRateAggregator,
} from "./aggregate.ts";
export { type Changes, type Comparison, compareAggregates, type FigureChange } from "./compare.ts";
export {
  AnalyticsError,
  type AnalyticsErrorCode,
  type ThresholdBreach,
  ThresholdError,
} from "./errors.ts";
export {
  callEventSchema,
  type ParsedEventLine,
  parseEventLine,
  parseEventValue,
} from "./event-schema.ts";
export { type Figures, GroupStats, isAnswered } from "./figures.ts";
export { exactSampleLimit, LatencySketch, relativeAccuracy } from "./latency-sketch.ts";
export {
  renderCsv,
  renderGroupsTable,
  renderHtml,
  renderJson,
  renderTable,
} from "./render/index.ts";
export { buildReport, type Report, type ReportOptions } from "./report.ts";
export * from "./sources/index.ts";
export {
  type AnalyticsEngineSqlOptions,
  analyticsEngineSqlSource,
  defaultDataset,
} from "./sql/index.ts";
export type {
  CallShare,
  HedgeFigures,
  RouteSteering,
  SteeredCount,
  SteeredStepRow,
  Steering,
  SteeringFigures,
} from "./steering.ts";
export {
  parseThreshold,
  type Threshold,
  type ThresholdMetric,
  thresholdMetrics,
} from "./thresholds.ts";
export {
  parseBucket,
  parseCompareWindow,
  parseDuration,
  parseInstant,
  parseWindow,
  type TimeWindow,
} from "./window.ts";
