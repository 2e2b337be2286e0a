/**
 * @module
 * What a report groups calls by: the five call fields (gateway, route, step, provider, model),
 * the endpoint that carried the call (`endpoint`: `universal`, `compat`, `provider` or `rest`,
 * so a route's two generations can be told apart, or put side by side) and any `cf-aig-metadata` key (`metadata.<key>`, e.g. `metadata.plan`). A group's key holds
 * the value of each grouped dimension; metadata values are strings (numbers and booleans as their
 * text), or null when the call did not carry the key.
 */
import type { CallEvent } from "../client/event.ts";

/** A call field events are grouped by. */
export type FieldDimension = "gateway" | "route" | "step" | "provider" | "model";

/** A `cf-aig-metadata` key events are grouped by, e.g. `metadata.plan`. */
export type MetadataDimension = `metadata.${string}`;

/** The endpoint that carried a call: never a default dimension, asked for with `--by endpoint`. */
export type EndpointDimension = "endpoint";

/** A dimension of a report. */
export type Dimension = FieldDimension | EndpointDimension | MetadataDimension;

/** Canonical order of the field dimensions in keys and tables (metadata keys follow, sorted). */
export const allDimensions: readonly FieldDimension[] = [
  "gateway",
  "route",
  "step",
  "provider",
  "model",
];

/** The values of a group's dimensions (only the grouped ones are present). */
export type GroupKey = { [dimension in Dimension]?: string | number | null };

/**
 * A call event as a source hands it over: with the call's metadata when the source has it (the
 * client's events carry what it sent; gateway logs what they stored).
 */
export type AnalyticsEvent = CallEvent;

const metadataPrefix = "metadata.";

/** True for `metadata.<key>`. */
export function isMetadataDimension(dimension: string): dimension is MetadataDimension {
  return dimension.startsWith(metadataPrefix) && dimension.length > metadataPrefix.length;
}

/** `metadata.plan` → `plan`. */
export function metadataKeyOf(dimension: MetadataDimension): string {
  return dimension.slice(metadataPrefix.length);
}

/**
 * The endpoint that carried a call: the event's own `endpoint` (a `fetch` call), else what its
 * mode means — `universal` the universal endpoint, `dynamic` the compat endpoint's
 * `dynamic/<route>`, `rest` the REST API; null when nothing says (an older `fetch` event).
 */
export function endpointOf(event: AnalyticsEvent): string | null {
  if (event.endpoint !== undefined) return event.endpoint;
  switch (event.mode) {
    case "universal":
      return "universal";
    case "dynamic":
      return "compat";
    case "rest":
      return "rest";
    default:
      return null;
  }
}

/** The value of one dimension for an event. */
export function dimensionValue(
  event: AnalyticsEvent,
  dimension: Dimension,
): string | number | null {
  if (dimension === "endpoint") return endpointOf(event);
  if (isMetadataDimension(dimension)) {
    const value = event.metadata?.[metadataKeyOf(dimension)];
    // Grouped as text, as the gateway's logs store it: the number 5 and "5" are one group.
    return value === undefined ? null : String(value);
  }
  return event[dimension];
}

/** The dimensions in canonical order: fields first, then the endpoint, then metadata keys sorted. */
export function orderDimensions(dimensions: Iterable<Dimension>): Dimension[] {
  const wanted = new Set(dimensions);
  const fields = allDimensions.filter((dimension) => wanted.has(dimension));
  const endpoint: Dimension[] = wanted.has("endpoint") ? ["endpoint"] : [];
  const metadata = [...wanted].filter(isMetadataDimension).sort();
  return [...fields, ...endpoint, ...metadata];
}

/** Orders keys by gateway, route, step (0, 1, …, none), provider, model, endpoint, then metadata. */
export function compareKeys(a: GroupKey, b: GroupKey): number {
  for (const dimension of [...allDimensions, "endpoint"] as const) {
    const order = compareValues(a[dimension], b[dimension]);
    if (order !== 0) return order;
  }
  const metadata = new Set(
    [...Object.keys(a), ...Object.keys(b)].filter(isMetadataDimension).sort(),
  );
  for (const dimension of metadata) {
    const order = compareValues(a[dimension], b[dimension]);
    if (order !== 0) return order;
  }
  return 0;
}

function compareValues(
  left: string | number | null | undefined,
  right: string | number | null | undefined,
): number {
  if (left === right) return 0;
  if (left === undefined || left === null) return 1;
  if (right === undefined || right === null) return -1;
  if (typeof left === "number" && typeof right === "number") return left - right;
  return String(left).localeCompare(String(right));
}
