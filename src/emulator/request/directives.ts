/**
 * @module
 * The `cf-aig-*` request headers, read and checked. A bad value is a 400 that names the header
 * and says what it accepts; nothing is silently ignored except metadata entries past the fifth
 * (Cloudflare drops those too).
 */
import { maxMetadataEntries, savedMetadataEntries } from "../../wire/custom-metadata.ts";
import { maxEventIdChars } from "../../wire/event-id.ts";
import { GatewayRequestError } from "../errors.ts";

/** What `cf-aig-backoff` (or a step's `config.backoff`) names; `step/retry.ts` has the formulas. */
export type Backoff = "constant" | "linear" | "exponential";

/** Metadata values Cloudflare accepts. */
export type MetadataValue = string | number | boolean | null;

/** `cf-aig-custom-cost`. */
export type CustomCost =
  | {
      readonly per_token_in: number;
      readonly per_token_out: number;
      /** Cache rates (changelog 2026-09-09); an omitted one defaults to `per_token_in`. */
      readonly per_cache_read_token?: number;
      readonly per_cache_write_token?: number;
    }
  | { readonly total_cost: number };

/** What the `cf-aig-*` headers of a request (or of a universal step) ask for. */
export interface Directives {
  cacheTtl?: number;
  skipCache?: boolean;
  cacheKey?: string;
  collectLog?: boolean;
  requestTimeoutMs?: number;
  maxAttempts?: number;
  retryDelayMs?: number;
  backoff?: Backoff;
  metadata?: Record<string, MetadataValue>;
  customCost?: CustomCost;
  eventId?: string;
  /** `cf-aig-byok-alias`: the stored provider key to use. */
  byokAlias?: string;
  /** `cf-aig-collect-log-payload: false` logs the request without its bodies. */
  collectLogPayload?: boolean;
  /** `cf-aig-no-wholesale: true`: no Unified Billing for this request; credentials required. */
  noWholesale?: boolean;
  /** `cf-aig-zdr`: Zero Data Retention for a Unified Billing request (accepted, no local effect). */
  zdr?: boolean;
}

/** Reads a header by lowercase name. */
export type HeaderGetter = (name: string) => string | undefined;

/**
 * The longest retry delay, in ms: request-handling.mdx, "How long before retrying (in
 * milliseconds, maximum of 5 seconds)"; the REST API's table says "max 5000" for
 * `cf-aig-retry-delay`.
 */
export const maxRetryDelayMs = 5_000;

/**
 * Reads the `cf-aig-*` headers. `where` names the source in messages (`request`, `step 1`).
 * @throws GatewayRequestError 400 for a malformed value.
 */
export function readDirectives(header: HeaderGetter, where = "request"): Directives {
  const directives: Directives = {};
  const ttlName = header("cf-aig-cache-ttl") !== undefined ? "cf-aig-cache-ttl" : "cf-cache-ttl";
  const cacheTtl = readInteger(
    header,
    where,
    ttlName,
    0,
    2_592_000,
    "0 (off) or 60 to 2592000 seconds",
  );
  if (cacheTtl !== undefined && cacheTtl > 0 && cacheTtl < 60) {
    throw invalidHeader(where, ttlName, "0 (off) or 60 to 2592000 seconds", String(cacheTtl));
  }
  if (cacheTtl !== undefined) directives.cacheTtl = cacheTtl;
  const skipName =
    header("cf-aig-skip-cache") !== undefined ? "cf-aig-skip-cache" : "cf-skip-cache";
  const skipCache = readBoolean(header, where, skipName);
  if (skipCache !== undefined) directives.skipCache = skipCache;
  const cacheKey = header("cf-aig-cache-key");
  if (cacheKey !== undefined) {
    if (cacheKey.trim() === "" || cacheKey.length > 1024) {
      throw invalidHeader(
        where,
        "cf-aig-cache-key",
        "a non-empty key of at most 1024 characters",
        cacheKey,
      );
    }
    directives.cacheKey = cacheKey;
  }
  const collectLog = readBoolean(header, where, "cf-aig-collect-log");
  if (collectLog !== undefined) directives.collectLog = collectLog;
  const collectLogPayload = readBoolean(header, where, "cf-aig-collect-log-payload");
  if (collectLogPayload !== undefined) directives.collectLogPayload = collectLogPayload;
  const noWholesale = readBoolean(header, where, "cf-aig-no-wholesale");
  if (noWholesale !== undefined) directives.noWholesale = noWholesale;
  const zdr = readBoolean(header, where, "cf-aig-zdr");
  if (zdr !== undefined) directives.zdr = zdr;
  const byokAlias = header("cf-aig-byok-alias");
  if (byokAlias !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(byokAlias.trim())) {
      throw invalidHeader(
        where,
        "cf-aig-byok-alias",
        "an alias of letters, digits, - and _ (at most 64 characters)",
        byokAlias,
      );
    }
    directives.byokAlias = byokAlias.trim();
  }
  const timeout = readInteger(
    header,
    where,
    "cf-aig-request-timeout",
    1,
    3_600_000,
    "a timeout in milliseconds (1 to 3600000)",
  );
  if (timeout !== undefined) directives.requestTimeoutMs = timeout;
  const maxAttempts = readInteger(
    header,
    where,
    "cf-aig-max-attempts",
    1,
    5,
    "a number of attempts from 1 to 5",
  );
  if (maxAttempts !== undefined) directives.maxAttempts = maxAttempts;
  const retryDelay = readInteger(
    header,
    where,
    "cf-aig-retry-delay",
    0,
    maxRetryDelayMs,
    `a delay in ms from 0 to ${maxRetryDelayMs}`,
  );
  if (retryDelay !== undefined) directives.retryDelayMs = retryDelay;
  const backoff = header("cf-aig-backoff");
  if (backoff !== undefined) {
    const value = backoff.trim().toLowerCase();
    if (value !== "constant" && value !== "linear" && value !== "exponential") {
      throw invalidHeader(where, "cf-aig-backoff", "constant, linear or exponential", backoff);
    }
    directives.backoff = value;
  }
  const metadata = header("cf-aig-metadata");
  if (metadata !== undefined) directives.metadata = readMetadata(metadata, where);
  const customCost = header("cf-aig-custom-cost");
  if (customCost !== undefined) directives.customCost = readCustomCost(customCost, where);
  const eventId = header("cf-aig-event-id");
  if (eventId !== undefined) {
    if (eventId.length > maxEventIdChars) {
      const expected = `at most ${maxEventIdChars} characters`;
      throw invalidHeader(where, "cf-aig-event-id", expected, eventId);
    }
    directives.eventId = eventId;
  }
  return directives;
}

function invalidHeader(
  where: string,
  name: string,
  expected: string,
  value: string,
): GatewayRequestError {
  return GatewayRequestError.invalid(
    `Invalid ${name} header on the ${where}: ${JSON.stringify(value.slice(0, 100))}; expected ${expected}.`,
  );
}

function readInteger(
  header: HeaderGetter,
  where: string,
  name: string,
  min: number,
  max: number,
  expected: string,
): number | undefined {
  const value = header(name);
  if (value === undefined) return undefined;
  const number = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw invalidHeader(where, name, expected, value);
  }
  return number;
}

function readBoolean(header: HeaderGetter, where: string, name: string): boolean | undefined {
  const value = header(name);
  if (value === undefined) return undefined;
  const lower = value.trim().toLowerCase();
  if (lower !== "true" && lower !== "false")
    throw invalidHeader(where, name, "true or false", value);
  return lower === "true";
}

function readMetadata(text: string, where: string): Record<string, MetadataValue> {
  const expected = `a JSON object of at most ${maxMetadataEntries} string, number or boolean values`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidHeader(where, "cf-aig-metadata", expected, text);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidHeader(where, "cf-aig-metadata", expected, text);
  }
  const entries = Object.entries(value);
  for (const [, entry] of entries) {
    if (entry !== null && typeof entry === "object") {
      throw invalidHeader(
        where,
        "cf-aig-metadata",
        `${expected} (no nested objects or arrays)`,
        text,
      );
    }
  }
  return Object.fromEntries(savedMetadataEntries(entries)) as Record<string, MetadataValue>;
}

function readCustomCost(text: string, where: string): CustomCost {
  const expected =
    '{"per_token_in":n,"per_token_out":n} (optionally "per_cache_read_token":n, "per_cache_write_token":n) or {"total_cost":n} with n >= 0';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidHeader(where, "cf-aig-custom-cost", expected, text);
  }
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const isAmount = (amount: unknown): amount is number =>
    typeof amount === "number" && Number.isFinite(amount) && amount >= 0;
  if (isAmount(record.total_cost)) return { total_cost: record.total_cost };
  if (isAmount(record.per_token_in) && isAmount(record.per_token_out)) {
    const { per_cache_read_token: read, per_cache_write_token: write } = record;
    if ((read !== undefined && !isAmount(read)) || (write !== undefined && !isAmount(write))) {
      throw invalidHeader(where, "cf-aig-custom-cost", expected, text);
    }
    return {
      per_token_in: record.per_token_in,
      per_token_out: record.per_token_out,
      ...(read === undefined ? {} : { per_cache_read_token: read }),
      ...(write === undefined ? {} : { per_cache_write_token: write }),
    };
  }
  throw invalidHeader(where, "cf-aig-custom-cost", expected, text);
}

/** A header getter over a plain object with any key case (a universal step's `headers`). */
export function objectHeaderGetter(headers: Readonly<Record<string, string>>): HeaderGetter {
  const lower = new Map(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return (name) => lower.get(name);
}

/**
 * A universal step's directives over the request's: the request's own when the step sends no
 * `cf-` header (every directive header starts so), without reading or copying anything.
 * @throws GatewayRequestError 400 for a malformed value, naming the step (`where`).
 */
export function withStepDirectives(
  request: Directives,
  headers: Readonly<Record<string, string>>,
  where: string,
): Directives {
  for (const name in headers) {
    if (/^cf-/i.test(name)) {
      return mergeDirectives(request, readDirectives(objectHeaderGetter(headers), where));
    }
  }
  return request;
}

/** Step directives win over request directives, field by field. */
export function mergeDirectives(request: Directives, step: Directives): Directives {
  return { ...request, ...step };
}
