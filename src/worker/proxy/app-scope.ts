/**
 * @module
 * Apps behind the Worker are tenants (issue #23): what an app sends is scoped to the app its token
 * names before it reaches the gateway, so one app can neither shape nor claim another's logs,
 * costs, analytics or stored keys.
 *
 * - Gateway controls (`cf-aig-custom-cost`, `cf-aig-collect-log`, `cf-aig-collect-log-payload`,
 *   `cf-aig-byok-alias`) are dropped unless the app's record allows them (`allow.controls`, set
 *   by the admin at `POST /app-tokens`): a custom cost of 0 would dodge spend limits, a log left
 *   out would hide a call, an alias would pick another team's stored key.
 * - `cf-aig-metadata` carries `app: <app id>` first, written by the Worker over any `app` the app
 *   sent; the app's other entries follow, as many as Cloudflare keeps ("AI Gateway allows you to
 *   pass up to five custom metadata entries per request. If more than five entries are provided,
 *   only the first five will be saved").
 * - `cf-aig-event-id` goes upstream as `<app id>:<id>`, so one app cannot write events under
 *   another's ids; the app gets its own id back ({@link unscopeEventId}).
 * - The app's `cf-aig-cache-key` is taken out here and scoped to the app by `app-cache.ts`.
 * - A universal step's own headers lose the same controls and any metadata, event id or cache key
 *   (a step's directives win over the request's at the gateway, so they would undo the above).
 */

import {
  type AttemptPlace,
  attemptPlaceKey,
  maxMetadataEntries,
  parseAttemptPlace,
} from "../../wire/attempt-place.ts";
import { WorkerError } from "../errors.ts";
import { type GatewayControl, gatewayControls, type StoredAppToken } from "../key-layout.ts";

/** The metadata entry the Worker writes with the app's id. */
export const appMetadataKey = "app";

/** A metadata value Cloudflare accepts: "Metadata values can be strings, numbers, or booleans". */
export type MetadataValue = string | number | boolean;

/** The request's headers scoped to its app, and what they say about the call. */
export interface ScopedRequest {
  readonly headers: Headers;
  /**
   * What goes upstream in `cf-aig-metadata`: `app` first, then the client's place in its route
   * (the `stepwise` entry, kept before the app's own entries so the five-entry cap never drops
   * it; not in this record: it is {@link place}), then the app's entries.
   */
  readonly metadata: Readonly<Record<string, MetadataValue>>;
  /** The request's place in the client's route (`src/wire/attempt-place.ts`); null for none. */
  readonly place: AttemptPlace | null;
  /** The app's `route` metadata entry, when it sent one. */
  readonly route: string | null;
  /** The event id as sent upstream (`<app>:<id>`), null when the app sent none. */
  readonly eventId: string | null;
  /** The app's own `cf-aig-cache-key`, taken out of the headers (`app-cache.ts` scopes it). */
  readonly appCacheKey: string | undefined;
}

/** Headers a universal step may not set for itself: the Worker sets them for the request. */
const requestOnlyHeaders = new Set(["cf-aig-metadata", "cf-aig-event-id", "cf-aig-cache-key"]);

/** The controls `app` may send. Records made before `allow` existed allow none. */
export function allowedControls(app: StoredAppToken): ReadonlySet<GatewayControl> {
  return new Set(app.allow?.controls ?? []);
}

/**
 * Scopes the headers going upstream (already without credentials) to `app`.
 * @throws {WorkerError} 400 `invalid_metadata` when `cf-aig-metadata` is not a JSON object of
 * strings, numbers and booleans.
 */
export function scopeRequestHeaders(headers: Headers, app: StoredAppToken): ScopedRequest {
  const scoped = new Headers(headers);
  const allowed = allowedControls(app);
  for (const control of gatewayControls) {
    if (!allowed.has(control)) scoped.delete(control);
  }
  const given = readMetadata(headers.get("cf-aig-metadata"));
  const upstream: Record<string, MetadataValue> = { [appMetadataKey]: app.id };
  const placeText = given[attemptPlaceKey];
  if (placeText !== undefined) upstream[attemptPlaceKey] = placeText;
  for (const [key, value] of Object.entries(given)) {
    if (Object.keys(upstream).length === maxMetadataEntries) break;
    if (key !== appMetadataKey && key !== attemptPlaceKey) upstream[key] = value;
  }
  scoped.set("cf-aig-metadata", JSON.stringify(upstream));
  const { [attemptPlaceKey]: _place, ...metadata } = upstream;
  const appCacheKey = headers.get("cf-aig-cache-key") ?? undefined;
  scoped.delete("cf-aig-cache-key");
  const asked = headers.get("cf-aig-event-id");
  const eventId = asked === null ? null : `${app.id}:${asked}`;
  if (eventId !== null) scoped.set("cf-aig-event-id", eventId);
  return {
    headers: scoped,
    metadata,
    place: placeText === undefined ? null : parseAttemptPlace(placeText),
    route: typeof given.route === "string" ? given.route : null,
    eventId,
    appCacheKey,
  };
}

/** A universal step's own headers scoped to `app` (names lowercase, as the proxy sends them). */
export function scopeStepHeaders(
  given: Readonly<Record<string, string>> | undefined,
  app: StoredAppToken,
): Record<string, string> {
  const allowed = allowedControls(app);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given ?? {})) {
    const lower = name.toLowerCase();
    if (requestOnlyHeaders.has(lower)) continue;
    if ((gatewayControls as readonly string[]).includes(lower) && !allowed.has(lower as never)) {
      continue;
    }
    headers[name] = value;
  }
  return headers;
}

/** The app's own event id back in the answer's `cf-aig-event-id` (the prefix taken off). */
export function unscopeEventId(headers: Headers, appId: string): void {
  const echoed = headers.get("cf-aig-event-id");
  const prefix = `${appId}:`;
  if (echoed?.startsWith(prefix)) headers.set("cf-aig-event-id", echoed.slice(prefix.length));
}

/** Longest `cf-aig-metadata` value read, in characters. */
const maxMetadataChars = 4096;

function readMetadata(raw: string | null): Record<string, MetadataValue> {
  if (raw === null) return {};
  let parsed: unknown;
  try {
    parsed = raw.length > maxMetadataChars ? undefined : JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw invalidMetadata();
  }
  const metadata: Record<string, MetadataValue> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      throw invalidMetadata();
    }
    metadata[key] = value;
  }
  return metadata;
}

function invalidMetadata(): WorkerError {
  return new WorkerError({
    status: 400,
    code: "invalid_metadata",
    message: `cf-aig-metadata must be a JSON object (at most ${maxMetadataChars} characters) of strings, numbers and booleans, e.g. {"team":"checkout","user":12345}.`,
  });
}
