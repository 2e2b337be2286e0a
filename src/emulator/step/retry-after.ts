/**
 * @module
 * How long a 429 (or 503) asks the caller to wait: `retry-after-ms` (milliseconds, as OpenAI
 * sends it), else `retry-after` in seconds or as an HTTP date.
 */
import { headerOf, type ResponseHeaders } from "../transport/attempt.ts";

/** The wait a response asks for, in ms; undefined when it asks for none or says nothing usable. */
export function retryAfterMs(headers: ResponseHeaders, now: number): number | undefined {
  const milliseconds = headerOf(headers, "retry-after-ms");
  if (milliseconds !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(milliseconds)) {
    return Math.ceil(Number(milliseconds));
  }
  const value = headerOf(headers, "retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
