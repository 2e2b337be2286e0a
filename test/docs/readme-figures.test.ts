/**
 * Figures in the README are measured, not remembered: a duration is either stated without a
 * number or comes from `npm run bench`'s last run (BENCHMARKS.md). A "takes about 15 s" written
 * once goes stale on the next machine.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { documentationFiles, projectRoot } from "./documented.ts";

describe("durations in README.md and docs/*.md", () => {
  it.each(documentationFiles)("%s states no remembered duration", (file) => {
    const text = readFileSync(path.join(projectRoot, file), "utf8").replace(/```[\s\S]*?```/g, "");
    const durations = text.match(
      /\b(about|around|under|in|takes|≈|~)\s+(a\s+)?[\d,.]+\s*(ms|s|sec|seconds?|min|minutes?|hours?)\b|\bunder a minute\b/gi,
    );
    expect(durations ?? []).toEqual([]);
  });
});
