import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aggregateEvents } from "../../src/analytics/aggregate.ts";
import { buildReport } from "../../src/analytics/report.ts";
import { eventsFileSource } from "../../src/analytics/sources/events-file.ts";
import { generateEventLines, generateEvents } from "../../tools/scripts/generate-events.ts";

let directory = "";
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-events-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("events files", () => {
  it("counts malformed lines with their numbers and reasons, skips blank lines, never stops", async () => {
    // Every 97th line is broken (truncated JSON, a bad field, a missing field); CRLF endings.
    const lines = [...generateEventLines({ count: 1_000, seed: 5, malformedEvery: 97 })];
    lines.splice(10, 0, "", "   ");
    const file = path.join(directory, "mixed.jsonl");
    await writeFile(file, `${lines.join("\r\n")}\r\n`);
    const source = eventsFileSource(file);
    const report = await buildReport(source, { now: () => 0 });

    const good = [...generateEvents({ count: 1_000, seed: 5 })].filter(
      (_, index) => (index + 1) % 97 !== 0,
    );
    expect(report.source).toMatchObject({
      kind: "events",
      name: file,
      records: 1_000,
      malformed: 10,
    });
    expect(report.counted).toBe(good.length);
    expect(report.totals).toEqual((await aggregateEvents(good)).totals);
    // Line numbers count the two blank lines inserted before line 97.
    expect(report.source.malformedSamples.map((sample) => sample.line)).toEqual([
      99, 196, 293, 390, 487,
    ]);
    expect(report.source.malformedSamples[0]?.reason).toMatch(/latencyMs: .*expected number/);
    expect(report.source.malformedSamples[1]?.reason).toMatch(/gateway: .*expected string/);
    expect(report.source.malformedSamples[2]?.reason).toMatch(/^not JSON/);
  });

  it("reads stdin for -", async () => {
    const events = [...generateEvents({ count: 20, seed: 9 })];
    const stdin = Readable.from([events.map((event) => JSON.stringify(event)).join("\n")]);
    const source = eventsFileSource("-", { stdin });
    const read = [];
    for await (const event of source.events()) read.push(event);
    expect(source.name).toBe("stdin");
    expect(read).toEqual(events);
  });

  it("says how to fix a missing file", async () => {
    const source = eventsFileSource(path.join(directory, "nope.jsonl"));
    await expect(buildReport(source)).rejects.toThrow(
      /nope\.jsonl does not exist\. Check the path, or pass - to read from stdin/,
    );
  });
});
