/**
 * What AI Gateway keeps of `cf-aig-metadata` (src/wire/custom-metadata.ts), value by value. From
 * Cloudflare's custom-metadata page: "Metadata values can be strings, numbers, or booleans" and
 * "AI Gateway allows you to pass up to five custom metadata entries per request. If more than five
 * entries are provided, only the first five will be saved; additional entries will be ignored."
 */
import { describe, expect, it } from "vitest";
import {
  isCustomMetadataValue,
  maxMetadataEntries,
  savedMetadataEntries,
} from "../../src/wire/custom-metadata.ts";

const values: [string, unknown, boolean][] = [
  ["a string", "checkout", true],
  ["an empty string", "", true],
  ["a number", 12345, true],
  ["a fraction", 0.5, true],
  ["a boolean", true, true],
  ["false", false, true],
  ["an object (not supported)", { team: "ai" }, false],
  ["an array", ["a"], false],
  ["null", null, false],
  ["undefined", undefined, false],
];

describe("custom metadata values", () => {
  it.each(values)("%s: kept as a value is %s", (_name, value, kept) => {
    expect(isCustomMetadataValue(value)).toBe(kept);
  });
});

const counts: [number, number][] = [
  [0, 0],
  [1, 1],
  [4, 4],
  [5, 5],
  [6, 5],
  [12, 5],
];

describe("custom metadata entries", () => {
  it("the limit is five", () => {
    expect(maxMetadataEntries).toBe(5);
  });

  it.each(counts)("%i entries sent: the first %i are saved", (sent, saved) => {
    const entries = Array.from({ length: sent }, (_, index) => [`k${index}`, index] as const);
    const kept = savedMetadataEntries(entries);
    expect(kept).toHaveLength(saved);
    expect(kept).toEqual(entries.slice(0, saved));
  });
});
