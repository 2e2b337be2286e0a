/**
 * A large events file aggregated by several threads gives the report one thread gives, to the
 * last bit: counts, rates, percentiles, costs (exact sums), malformed lines with their file-wide
 * numbers and the first samples in file order. The files are the project's generated events
 * (seeds 1 and 2) with malformed lines of every kind spread through them, so some fall in every
 * thread's part.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReport, type ReportOptions } from "../../../src/analytics/report.ts";
import { eventsFileSource } from "../../../src/analytics/sources/events-file.ts";
import { generateEventLines } from "../../../tools/scripts/generate-events.ts";

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-parallel-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Generated lines with every kind of line the reader must skip or refuse, here and there. */
function linesWithTrouble(seed: number, count: number): string[] {
  const lines = [...generateEventLines({ count, seed, malformedEvery: 97 })];
  lines.splice(10, 0, "");
  lines.splice(500, 0, "   ");
  lines.splice(1_200, 0, "not json at all");
  lines.splice(2_500, 0, `{"time":"${"x".repeat(5_000)}"}`);
  lines.splice(3_000, 0, "[1,2,3]");
  lines[4_000] = `${lines[4_000]}\r`;
  return lines;
}

async function fileOf(name: string, lines: readonly string[], end = "\n"): Promise<string> {
  const file = path.join(directory, name);
  await writeFile(file, lines.join("\n") + end);
  return file;
}

async function reportOf(file: string, threads: number, options: ReportOptions = {}) {
  // Parts of 64 KiB: each thread reads several, taking the next as it finishes the last.
  const source = eventsFileSource(file, {
    threads,
    partBytes: 65_536,
    maxLineBytes: 4_096,
    malformedSamples: 8,
  });
  return buildReport(source, { now: () => 0, ...options });
}

describe("the events file read by several threads", () => {
  for (const seed of [1, 2]) {
    it(`gives the report one thread gives (seed ${seed}, malformed lines in every part)`, async () => {
      const file = await fileOf(`seed-${seed}.jsonl`, linesWithTrouble(seed, 6_000));
      const single = await reportOf(file, 1);
      expect(single.source.malformed).toBeGreaterThan(60);
      expect(single.source.malformedSamples.length).toBe(8);
      for (const threads of [2, 3]) {
        expect(await reportOf(file, threads)).toStrictEqual(single);
      }
    });
  }

  it("gives the same comparison, explicit buckets and grouping", async () => {
    const file = await fileOf("compare.jsonl", linesWithTrouble(3, 4_000), "");
    const since = Date.parse("2026-05-01T06:00:00.000Z");
    const options: ReportOptions = {
      window: { since, until: since + 6 * 3_600_000 },
      compareWindow: { since: since - 6 * 3_600_000, until: since },
      bucketMs: 3_600_000,
      dimensions: ["route", "provider"],
      routes: ["default", "fast"],
    };
    const single = await reportOf(file, 1, options);
    expect(single.comparison).not.toBeNull();
    expect(await reportOf(file, 3, options)).toStrictEqual(single);
  });

  it("says a file is not an events file as one thread does", async () => {
    const file = await fileOf(
      "garbage.jsonl",
      Array.from({ length: 300 }, (_, index) => `garbage ${index}`),
    );
    const single = reportOf(file, 1);
    await expect(single).rejects.toThrow(/is not an events file/);
    const error = await reportOf(file, 2).catch((caught: unknown) => caught);
    expect(error).toStrictEqual(await single.catch((caught: unknown) => caught));
  });
});
