/**
 * @module
 * What AI Gateway keeps of a request's `cf-aig-metadata` (custom-metadata.mdx): "AI Gateway allows
 * you to pass up to five custom metadata entries per request. If more than five entries are
 * provided, only the first five will be saved; additional entries will be ignored." and "Metadata
 * values can be strings, numbers, or booleans" ("Objects are not supported as metadata values.").
 *
 * The config's policy checks, the client's place entry, the Worker's app scoping and the emulator
 * all read the limit here, so they cannot disagree about it.
 */

/** The metadata entries AI Gateway keeps per request: "up to five custom metadata entries". */
export const maxMetadataEntries = 5;

/** A value Cloudflare accepts: "Metadata values can be strings, numbers, or booleans". */
export type CustomMetadataValue = string | number | boolean;

/** True for a string, number or boolean: a value the gateway keeps as sent. */
export function isCustomMetadataValue(value: unknown): value is CustomMetadataValue {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/** The entries the gateway saves of `entries`, in order: the first {@link maxMetadataEntries}. */
export function savedMetadataEntries<T>(entries: readonly T[]): T[] {
  return entries.slice(0, maxMetadataEntries);
}
