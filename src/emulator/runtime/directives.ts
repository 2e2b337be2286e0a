/**
 * @module
 * The `cf-aig-*` request headers, read and checked. A bad value is a 400 that names the header
 * and says what it accepts; nothing is silently ignored except metadata entries past the fifth
 * (Cloudflare drops those too).
 */
import { GatewayRequestError } from "../errors.ts";
import type { Backoff } from "./retry.ts";

/** Metadata values Cloudflare accepts. */
export type MetadataValue = string | number | boolean | null;

/** `cf-aig-custom-cost`. */
export type CustomCost =
  | { readonly per_token_in: number; readonly per_token_out: number }
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
}

/** Reads a header by lowercase name. */
export type HeaderGetter = (name: string) => string | undefined;

/** Most metadata entries kept. */
export const maxMetadataEntries = 5;

/**
 * Reads the `cf-aig-*` headers. `where` names the source in messages (`request`, `step 1`).
 * @throws GatewayRequestError 400 for a malformed value.
 */
export function readDirectives(header: HeaderGetter, where = "request"): Directives {
  const directives: Directives = {};
  const invalid = (name: string, expected: string, value: string) =>
    GatewayRequestError.invalid(
      `Invalid ${name} header on the ${where}: ${JSON.stringify(value.slice(0, 100))}; expected ${expected}.`,
    );
  const integer = (name: string, min: number, max: number, expected: string) => {
    const value = header(name);
    if (value === undefined) return undefined;
    const number = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < min || number > max) {
      throw invalid(name, expected, value);
    }
    return number;
  };
  const boolean = (name: string) => {
    const value = header(name);
    if (value === undefined) return undefined;
    const lower = value.trim().toLowerCase();
    if (lower !== "true" && lower !== "false") throw invalid(name, "true or false", value);
    return lower === "true";
  };

  const ttlName = header("cf-aig-cache-ttl") !== undefined ? "cf-aig-cache-ttl" : "cf-cache-ttl";
  const cacheTtl = integer(ttlName, 0, 2_592_000, "0 (off) or 60 to 2592000 seconds");
  if (cacheTtl !== undefined && cacheTtl > 0 && cacheTtl < 60) {
    throw invalid(ttlName, "0 (off) or 60 to 2592000 seconds", String(cacheTtl));
  }
  if (cacheTtl !== undefined) directives.cacheTtl = cacheTtl;
  const skipName =
    header("cf-aig-skip-cache") !== undefined ? "cf-aig-skip-cache" : "cf-skip-cache";
  const skipCache = boolean(skipName);
  if (skipCache !== undefined) directives.skipCache = skipCache;
  const cacheKey = header("cf-aig-cache-key");
  if (cacheKey !== undefined) {
    if (cacheKey.trim() === "" || cacheKey.length > 1024) {
      throw invalid("cf-aig-cache-key", "a non-empty key of at most 1024 characters", cacheKey);
    }
    directives.cacheKey = cacheKey;
  }
  const collectLog = boolean("cf-aig-collect-log");
  if (collectLog !== undefined) directives.collectLog = collectLog;
  const collectLogPayload = boolean("cf-aig-collect-log-payload");
  if (collectLogPayload !== undefined) directives.collectLogPayload = collectLogPayload;
  const byokAlias = header("cf-aig-byok-alias");
  if (byokAlias !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(byokAlias.trim())) {
      throw invalid(
        "cf-aig-byok-alias",
        "an alias of letters, digits, - and _ (at most 64 characters)",
        byokAlias,
      );
    }
    directives.byokAlias = byokAlias.trim();
  }
  const timeout = integer(
    "cf-aig-request-timeout",
    1,
    3_600_000,
    "a timeout in milliseconds (1 to 3600000)",
  );
  if (timeout !== undefined) directives.requestTimeoutMs = timeout;
  const maxAttempts = integer("cf-aig-max-attempts", 1, 5, "a number of attempts from 1 to 5");
  if (maxAttempts !== undefined) directives.maxAttempts = maxAttempts;
  const retryDelay = integer("cf-aig-retry-delay", 0, 5_000, "a delay in ms from 0 to 5000");
  if (retryDelay !== undefined) directives.retryDelayMs = retryDelay;
  const backoff = header("cf-aig-backoff");
  if (backoff !== undefined) {
    const value = backoff.trim().toLowerCase();
    if (value !== "constant" && value !== "linear" && value !== "exponential") {
      throw invalid("cf-aig-backoff", "constant, linear or exponential", backoff);
    }
    directives.backoff = value;
  }
  const metadata = header("cf-aig-metadata");
  if (metadata !== undefined) directives.metadata = readMetadata(metadata, invalid);
  const customCost = header("cf-aig-custom-cost");
  if (customCost !== undefined) directives.customCost = readCustomCost(customCost, invalid);
  const eventId = header("cf-aig-event-id");
  if (eventId !== undefined) {
    if (eventId.length > 256) throw invalid("cf-aig-event-id", "at most 256 characters", eventId);
    directives.eventId = eventId;
  }
  return directives;
}

type InvalidFactory = (name: string, expected: string, value: string) => GatewayRequestError;

function readMetadata(text: string, invalid: InvalidFactory): Record<string, MetadataValue> {
  const expected = "a JSON object of at most 5 string, number or boolean values";
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid("cf-aig-metadata", expected, text);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("cf-aig-metadata", expected, text);
  }
  const entries = Object.entries(value);
  for (const [, entry] of entries) {
    if (entry !== null && typeof entry === "object") {
      throw invalid("cf-aig-metadata", `${expected} (no nested objects or arrays)`, text);
    }
  }
  return Object.fromEntries(entries.slice(0, maxMetadataEntries)) as Record<string, MetadataValue>;
}

function readCustomCost(text: string, invalid: InvalidFactory): CustomCost {
  const expected = '{"per_token_in":n,"per_token_out":n} or {"total_cost":n} with n >= 0';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid("cf-aig-custom-cost", expected, text);
  }
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const isAmount = (amount: unknown): amount is number =>
    typeof amount === "number" && Number.isFinite(amount) && amount >= 0;
  if (isAmount(record.total_cost)) return { total_cost: record.total_cost };
  if (isAmount(record.per_token_in) && isAmount(record.per_token_out)) {
    return { per_token_in: record.per_token_in, per_token_out: record.per_token_out };
  }
  throw invalid("cf-aig-custom-cost", expected, text);
}

/** A header getter over a plain object with any key case (a universal step's `headers`). */
export function objectHeaderGetter(headers: Readonly<Record<string, string>>): HeaderGetter {
  const lower = new Map(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return (name) => lower.get(name);
}

/** Step directives win over request directives, field by field. */
export function mergeDirectives(request: Directives, step: Directives): Directives {
  return { ...request, ...step };
}
