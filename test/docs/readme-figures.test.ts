/**
 * How long things take, in the README, is measured, not remembered: a duration is either stated
 * without a number or comes from `npm run bench`'s last run (BENCHMARKS.md). A "takes about
 * 15 s" written once goes stale on the next machine.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "./documented.ts";

describe("durations in README.md", () => {
  it("states no remembered duration", () => {
    const text = readFileSync(path.join(projectRoot, "README.md"), "utf8").replace(
      /```[\s\S]*?```/g,
      "",
    );
    const durations = text.match(
      /\b(about|around|under|in|takes|≈|~)\s+(a\s+)?[\d,.]+\s*(ms|s|sec|seconds?|min|minutes?|hours?)\b|\bunder a minute\b/gi,
    );
    expect(durations ?? []).toEqual([]);
  });
});
