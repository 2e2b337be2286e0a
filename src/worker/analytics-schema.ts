/**
 * @module
 * The Workers Analytics Engine data point of one proxied call: the one place that says which
 * column holds what. The companion Worker writes points with {@link encodeCallPoint}; `stepwise
 * report` reads rows (export files, the SQL API) with `decodeCallRow` (`analytics-row.ts`) and
 * builds its SQL from {@link callPointColumns}, so writer and reader cannot drift apart.
 *
 * | column      | field        | meaning                                                        |
 * |-------------|--------------|----------------------------------------------------------------|
 * | `index1`    | gateway      | sampling key: Analytics Engine samples per index               |
 * | `blob1`     | gateway      | gateway id                                                     |
 * | `blob2`     | route        | route name (the client's `cf-aig-metadata` `route`, or `dynamic/<route>`) |
 * | `blob3`     | provider     | provider that served, or the last tried; empty when unknown    |
 * | `blob4`     | model        | model that served, or the last tried; empty when unknown       |
 * | `blob5`     | errorCode    | stable error code when the call failed; empty when ok          |
 * | `blob6`     | cacheStatus  | `HIT`, `MISS`, or empty                                        |
 * | `blob7`     | app          | id of the app token that made the call                         |
 * | `blob8`     | mode         | `universal`, `dynamic`, `provider` or `compat`                 |
 * | `blob9`     | keySource    | where the injected key came from (`current`, `previous`, `byok`, `missing`) |
 * | `blob10`    | eventId      | `cf-aig-event-id` of the call (joins with client events and gateway logs) |
 * | `blob11–15` | metadata     | up to five `cf-aig-metadata` entries as `key=value`, sorted by key (not `stepwise`, not `app`: that is `blob7`) |
 * | `double1`   | step         | 0-based route step that served; −1 when none did               |
 * | `double2`   | status       | HTTP status answered to the app; 0 when the gateway was unreachable |
 * | `double3`   | latencyMs    | ms from the call's first attempt to the gateway's first byte of this one |
 * | `double4`   | ok           | 1 when the call succeeded (2xx and no error code), else 0      |
 * | `double5`   | tokensIn     | input tokens; −1 when unknown                                  |
 * | `double6`   | tokensOut    | output tokens; −1 when unknown                                 |
 * | `double7`   | cost         | USD from the config's price table; −1 when unpriced            |
 * | `double8`   | version      | {@link callPointSchemaVersion} of the writer                   |
 * | `double9`   | attempt      | the client's attempt of the call this request is (1 for the first) |
 *
 * A call the client re-sent (a cut stream, a refusal, a rejected answer) is one point per
 * request, sharing `blob7` and `blob10`; the request's place in the route (the `stepwise`
 * metadata entry, `src/wire/attempt-place.ts`) maps its step to the route's and gives `double9`
 * and the time before it. The report counts a call once, by its last attempt (`argMax` over
 * `double9`; of a hedge and the request it raced, the ok one), and what its other attempts cost
 * apart.
 *
 * Rows also carry `timestamp` (written by Analytics Engine) and `_sample_interval` (how many
 * calls the row stands for after sampling). A point never carries a key or a token.
 */

/**
 * Bumped when a column changes meaning; written in `double8`. 3: one point per request with
 * `double9` the attempt, `double1` the route's step, `double3` counted from the call's start.
 */
export const callPointSchemaVersion = 3;

/** How the call reached the Worker. */
export type CallPointMode = "universal" | "dynamic" | "provider" | "compat";

/** What one proxied call reports. Nulls are written as empty blobs or −1 doubles. */
export interface CallPoint {
  readonly gateway: string;
  readonly route: string;
  readonly provider: string | null;
  readonly model: string | null;
  readonly errorCode: string | null;
  readonly cacheStatus: "HIT" | "MISS" | null;
  readonly app: string;
  readonly mode: CallPointMode;
  readonly keySource: string | null;
  readonly eventId: string | null;
  /**
   * At most five entries are written (sorted by key), `app` left out (it is {@link app}); values
   * are stringified.
   */
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
  readonly step: number | null;
  readonly status: number;
  readonly latencyMs: number;
  readonly ok: boolean;
  readonly tokensIn: number | null;
  readonly tokensOut: number | null;
  readonly cost: number | null;
  /** The client's attempt of the call (1 for the first; absent: 1). */
  readonly attempt?: number;
}

/**
 * The metadata entry naming the app (the Worker writes it into `cf-aig-metadata`): in `blob7`
 * only, never repeated among the metadata blobs.
 */
export const appMetadataKey = "app";

/** Blob fields in column order (`blob1` … `blob10`); metadata follows in `blob11`–`blob15`. */
export const blobFields = [
  "gateway",
  "route",
  "provider",
  "model",
  "errorCode",
  "cacheStatus",
  "app",
  "mode",
  "keySource",
  "eventId",
] as const;

/** Double fields in column order (`double1` … `double9`). */
export const doubleFields = [
  "step",
  "status",
  "latencyMs",
  "ok",
  "tokensIn",
  "tokensOut",
  "cost",
  "version",
  "attempt",
] as const;

/** Columns holding metadata entries (`key=value`). */
export const metadataColumns = ["blob11", "blob12", "blob13", "blob14", "blob15"] as const;

export type BlobField = (typeof blobFields)[number];
export type DoubleField = (typeof doubleFields)[number];

/** Field → Analytics Engine column name, e.g. `callPointColumns.route === "blob2"`. */
export const callPointColumns: Readonly<Record<BlobField | DoubleField, string>> = {
  ...Object.fromEntries(blobFields.map((field, index) => [field, `blob${index + 1}`])),
  ...Object.fromEntries(doubleFields.map((field, index) => [field, `double${index + 1}`])),
} as Record<BlobField | DoubleField, string>;

/** Column of the time Analytics Engine stamped on the row, and of its sampling weight. */
export const timestampColumn = "timestamp";
export const sampleIntervalColumn = "_sample_interval";

/** A column of a call's last attempt, as {@link callsSubquery} names it: `call_blob2`, … */
export function callColumnOf(name: string): string {
  return `call_${name.replace(/^_/, "")}`;
}

/**
 * One row per call from the points of `table` that match `where`: the Worker writes a point per
 * request, and the requests of a call the client re-sent share the app (`blob7`) and the event id
 * (`blob10`). Each column of the call's last attempt (`argMax(…, double9 * 2 + double4)`: of
 * two requests of one attempt, a hedge and the request it raced, the ok one) comes out under
 * {@link callColumnOf} (`call_blob2` route, `call_double1` step, `call_double3` latency from the
 * call's start, …), with `call_sample_interval` its weight, `call_timestamp` the call's first
 * attempt's time and `call_double9` its attempts. A point without an event id is a call of its
 * own. Distinct names, because ClickHouse lets an alias shadow a column of the same name.
 */
export function callsSubquery(table: string, where: string): string {
  const attempt = callPointColumns.attempt;
  const eventId = callPointColumns.eventId;
  // The last attempt; of two requests of one attempt (a hedge and the request it raced), the ok one.
  const order = `${attempt} * 2 + ${callPointColumns.ok}`;
  const last = (name: string) => `argMax(${name}, ${order}) AS ${callColumnOf(name)}`;
  const columns = [
    ...Object.values(callPointColumns).filter((name) => name !== attempt),
    ...metadataColumns,
  ];
  const alone = [
    `toUnixTimestamp(${timestampColumn})`,
    callPointColumns.step,
    callPointColumns.status,
    callPointColumns.latencyMs,
  ].map((value) => `if(${eventId} = '', ${value}, 0)`);
  return [
    `SELECT ${[
      ...columns.map(last),
      `max(${attempt}) AS ${callColumnOf(attempt)}`,
      `argMax(${sampleIntervalColumn}, ${order}) AS ${callColumnOf(sampleIntervalColumn)}`,
      `min(${timestampColumn}) AS ${callColumnOf(timestampColumn)}`,
    ].join(", ")}`,
    `FROM ${table}`,
    `WHERE ${where}`,
    `GROUP BY ${[callPointColumns.app, eventId, ...alone].join(", ")}`,
  ].join("\n");
}

/** Analytics Engine's limits: an index ≤ 96 bytes; all blobs of a point ≤ 16 KB together. */
const maxIndexBytes = 96;
const maxBlobChars = 256;

/** The argument of `AnalyticsEngineDataset.writeDataPoint`. */
export interface EncodedCallPoint {
  readonly indexes: string[];
  readonly blobs: string[];
  readonly doubles: number[];
}

/** The data point the Worker writes for one call; bounded so `writeDataPoint` never refuses it. */
export function encodeCallPoint(point: CallPoint): EncodedCallPoint {
  const blobs: Record<BlobField, string | null> = {
    gateway: point.gateway,
    route: point.route,
    provider: point.provider,
    model: point.model,
    errorCode: point.errorCode,
    cacheStatus: point.cacheStatus,
    app: point.app,
    mode: point.mode,
    keySource: point.keySource,
    eventId: point.eventId,
  };
  const doubles: Record<DoubleField, number | null> = {
    step: point.step,
    status: point.status,
    latencyMs: Math.round(point.latencyMs),
    ok: point.ok ? 1 : 0,
    tokensIn: point.tokensIn,
    tokensOut: point.tokensOut,
    cost: point.cost,
    version: callPointSchemaVersion,
    attempt: point.attempt ?? 1,
  };
  const metadata = Object.entries(point.metadata)
    .filter(([key]) => key !== appMetadataKey)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, metadataColumns.length)
    .map(([key, value]) => bounded(`${key}=${String(value)}`));
  return {
    indexes: [truncateBytes(point.gateway, maxIndexBytes)],
    blobs: [...blobFields.map((field) => bounded(blobs[field] ?? "")), ...metadata],
    doubles: doubleFields.map((field) => doubles[field] ?? -1),
  };
}

function bounded(value: string): string {
  return value.length > maxBlobChars ? value.slice(0, maxBlobChars) : value;
}

function truncateBytes(value: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(value);
  if (bytes.byteLength <= maxBytes) return value;
  return new TextDecoder().decode(bytes.slice(0, maxBytes)).replace(/\uFFFD$/, "");
}
