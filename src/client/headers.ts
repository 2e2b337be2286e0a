/**
 * @module
 * Per-call settings → `cf-aig-*` request headers, checked before anything is sent so that a bad
 * value fails with a clear message instead of a gateway 400 (or, worse, being silently ignored:
 * the gateway drops metadata entries past the fifth).
 */

import { InvalidOptionsError } from "./errors.ts";
import type { GatewayCallSettings } from "./types.ts";

const maxCacheTtlSeconds = 2_592_000;
const maxMetadataEntries = 5;

/** Everything that goes into one call's gateway headers. */
export interface HeaderSources {
  readonly gatewayToken?: string | undefined;
  /** The client's default `cf-aig-request-timeout`. */
  readonly defaultRequestTimeoutMs?: number | undefined;
  /** Extra headers from the client options. */
  readonly extra?: Readonly<Record<string, string>> | undefined;
  readonly settings: GatewayCallSettings;
  /** The event id sent as `cf-aig-event-id`. */
  readonly eventId: string;
  /**
   * The route's name, added to `cf-aig-metadata` as `route` so the gateway's own logs say which
   * route a call used (`stepwise report --source logs`). Left out when the caller's metadata
   * already has `route` or uses all five entries.
   */
  readonly route?: string;
}

function withRoute(
  metadata: GatewayCallSettings["metadata"],
  route: string | undefined,
): GatewayCallSettings["metadata"] {
  if (route === undefined) return metadata;
  if (metadata === undefined) return { route };
  if ("route" in metadata || Object.keys(metadata).length >= maxMetadataEntries) return metadata;
  return { route, ...metadata };
}

/**
 * The request headers of a gateway call (JSON body included).
 * @throws InvalidOptionsError for out-of-range settings.
 */
export function gatewayHeaders(sources: HeaderSources): Record<string, string> {
  const { settings } = sources;
  checkCallSettings(settings);
  const headers: Record<string, string> = {
    ...(sources.extra ?? {}),
    "content-type": "application/json",
    "cf-aig-event-id": sources.eventId,
  };
  if (sources.gatewayToken !== undefined) {
    headers["cf-aig-authorization"] = `Bearer ${sources.gatewayToken}`;
  }
  const timeout = settings.requestTimeoutMs ?? sources.defaultRequestTimeoutMs;
  if (timeout !== undefined) headers["cf-aig-request-timeout"] = String(timeout);
  if (settings.cacheTtl !== undefined) headers["cf-aig-cache-ttl"] = String(settings.cacheTtl);
  if (settings.skipCache !== undefined) headers["cf-aig-skip-cache"] = String(settings.skipCache);
  if (settings.cacheKey !== undefined) headers["cf-aig-cache-key"] = settings.cacheKey;
  if (settings.collectLog !== undefined) {
    headers["cf-aig-collect-log"] = String(settings.collectLog);
  }
  const metadata = withRoute(settings.metadata, sources.route);
  if (metadata !== undefined) headers["cf-aig-metadata"] = JSON.stringify(metadata);
  const retries = settings.retries;
  if (retries?.maxAttempts !== undefined) {
    headers["cf-aig-max-attempts"] = String(retries.maxAttempts);
  }
  if (retries?.delayMs !== undefined) headers["cf-aig-retry-delay"] = String(retries.delayMs);
  if (retries?.backoff !== undefined) headers["cf-aig-backoff"] = retries.backoff;
  return headers;
}

/**
 * Checks per-call gateway settings against the gateway's limits.
 * @throws InvalidOptionsError naming the bad setting and its allowed range.
 */
export function checkCallSettings(settings: GatewayCallSettings): void {
  const problems: string[] = [];
  const { cacheTtl, metadata, retries, requestTimeoutMs, eventId, cacheKey } = settings;
  if (
    cacheTtl !== undefined &&
    !(
      Number.isInteger(cacheTtl) &&
      (cacheTtl === 0 || (cacheTtl >= 60 && cacheTtl <= maxCacheTtlSeconds))
    )
  ) {
    problems.push(
      `cacheTtl must be 0 (off) or 60 to ${maxCacheTtlSeconds} seconds, got ${cacheTtl}`,
    );
  }
  if (requestTimeoutMs !== undefined && !isPositiveInteger(requestTimeoutMs)) {
    problems.push(
      `requestTimeoutMs must be a positive whole number of ms, got ${requestTimeoutMs}`,
    );
  }
  if (metadata !== undefined) {
    const entries = Object.entries(metadata);
    if (entries.length > maxMetadataEntries) {
      problems.push(
        `metadata has ${entries.length} entries; the gateway keeps only ${maxMetadataEntries}`,
      );
    }
    for (const [key, value] of entries) {
      if (!["string", "number", "boolean"].includes(typeof value)) {
        problems.push(`metadata.${key} must be a string, number or boolean`);
      }
    }
  }
  if (retries?.maxAttempts !== undefined && !isInRange(retries.maxAttempts, 1, 5)) {
    problems.push(`retries.maxAttempts must be 1 to 5, got ${retries.maxAttempts}`);
  }
  if (retries?.delayMs !== undefined && !isInRange(retries.delayMs, 0, 5_000)) {
    problems.push(`retries.delayMs must be 0 to 5000 ms, got ${retries.delayMs}`);
  }
  if (eventId !== undefined && !isHeaderValue(eventId)) {
    problems.push("eventId must be non-empty and free of line breaks");
  }
  if (cacheKey !== undefined && !isHeaderValue(cacheKey)) {
    problems.push("cacheKey must be non-empty and free of line breaks");
  }
  if (problems.length > 0) {
    throw new InvalidOptionsError({ message: `Invalid call options: ${problems.join("; ")}.` });
  }
}

function isPositiveInteger(value: number): boolean {
  return Number.isInteger(value) && value > 0;
}

function isInRange(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

function isHeaderValue(value: string): boolean {
  return value !== "" && !/[\r\n]/.test(value);
}
