/**
 * `stepwise report` on hostile or odd input: over-long lines, absurd dates and numbers, control
 * characters and formulas in names, float noise in costs, directories and files that are not
 * events; and automatic buckets sized to the run.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { renderCsv } from "../../src/analytics/render/csv.ts";
import { renderTable } from "../../src/analytics/render/table.ts";
import { buildReport } from "../../src/analytics/report.ts";
import { eventsFileSource } from "../../src/analytics/sources/events-file.ts";
import { main } from "../../src/cli/main.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";

const start = Date.parse("2026-05-01T00:00:00Z");
const sample = [...generateEvents({ count: 20, seed: 4, start, spanMs: 60_000 })];
const event = (overrides: Partial<CallEvent> & Record<string, unknown> = {}) =>
  JSON.stringify({ ...sample[0], ...overrides });
let directory = "";

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-robust-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function fileWith(name: string, lines: readonly string[]): Promise<string> {
  const file = path.join(directory, name);
  await writeFile(file, `${lines.join("\n")}\n`);
  return file;
}

describe("report input limits", () => {
  it("skips and counts a line over the length limit without holding it", async () => {
    const huge = event({ route: "r".repeat(3 * 1024 * 1024) });
    const file = await fileWith("long.jsonl", [event(), huge, event({ id: "after" })]);
    const source = eventsFileSource(file);
    const report = await buildReport(source);
    expect(report.counted).toBe(2);
    expect(report.source.malformed).toBe(1);
    expect(report.source.malformedSamples[0]).toMatchObject({
      line: 2,
      reason: expect.stringMatching(
        /^line is 3,14\d,\d{3} bytes, longer than the 1,048,576-byte limit; skipped$/,
      ),
    });
    // The limit is an option; a line just under it reads.
    const small = eventsFileSource(file, { maxLineBytes: event().length });
    expect((await buildReport(small)).source.malformed).toBe(1);
  });

  it("refuses absurd dates and numbers as malformed instead of crashing", async () => {
    const file = await fileWith("absurd.jsonl", [
      event(),
      event({ time: "+275760-09-13T00:00:00.000Z" }),
      event({ time: "1970-01-01T00:00:00.000Z" }),
      event({ time: "2026-02-30T00:00:00.000Z" }),
      event({ latencyMs: 1e300 }),
      event({ tokensIn: 1e20 }),
      event({ cost: 1e12 }),
      event({ step: 100_000 }),
      event({ status: 70_000 }),
      event({ model: "m".repeat(10_000) }),
    ]);
    const report = await buildReport(eventsFileSource(file, { malformedSamples: 20 }), {
      bucketMs: 60_000,
    });
    expect(report.counted).toBe(1);
    expect(report.source.malformed).toBe(9);
    expect(report.source.malformedSamples.map((entry) => entry.reason.split(":")[0])).toEqual([
      "time",
      "time",
      "time",
      "latencyMs",
      "tokensIn",
      "cost",
      "step",
      "status",
      "model",
    ]);
    expect(renderTable(report)).toContain("1 calls counted");
  });
});

describe("report output safety", () => {
  const hostile: CallEvent[] = [
    { ...(sample[0] as CallEvent), route: "\u001b[2J\u001b[31mred\u0007", cost: 0.1 },
    { ...(sample[1] as CallEvent), route: '=HYPERLINK("http://x")', provider: "+cmd", cost: 0.2 },
    { ...(sample[2] as CallEvent), route: "@SUM(A1)", model: "-2+3", cost: 0.2 },
  ];
  const source = {
    kind: "events" as const,
    name: "x\u001b[8mhidden",
    stats: { records: 3, malformed: 0, malformedSamples: [] },
    async *events() {
      yield* hostile;
    },
  };

  it("writes control characters in names as visible escapes on the terminal", async () => {
    const text = renderTable(await buildReport(source, { dimensions: ["route"] }));
    expect(text).toContain("\\x1b[2J\\x1b[31mred\\x07");
    expect(text).toContain("x\\x1b[8mhidden");
    expect(text).not.toContain("\u001b[2J");
    expect(text).not.toContain("\u0007");
  });

  it("neutralises formula cells and rounds money in CSV", async () => {
    const csv = renderCsv(
      await buildReport(source, { dimensions: ["route", "provider", "model"] }),
    );
    const [header, ...lines] = csv.split("\n");
    const total = lines.find((line) => line.startsWith("current,total,"));
    // 0.1 + 0.2 + 0.2 is 0.5000000000000001 in floating point.
    expect(total?.split(",")[header?.split(",").indexOf("cost") ?? -1]).toBe("0.5");
    expect(csv).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(csv).toContain(`,"'+cmd",`);
    expect(csv).toContain(`,"'@SUM(A1)",`);
    expect(csv).toContain(`,"'-2+3",`);
    expect(csv).not.toContain("\u001b");
  });
});

describe("automatic buckets", () => {
  it("gives a short run 30 to 120 buckets instead of one bar", async () => {
    const tenMinutes = [...generateEvents({ count: 2_000, seed: 9, start, spanMs: 600_000 })];
    const report = await buildReport(memory(tenMinutes));
    expect(report.series.bucket).toBe("5s");
    expect(report.series.points.length).toBeGreaterThanOrEqual(30);
    expect(report.series.points.length).toBeLessThanOrEqual(120);
    const day = [...generateEvents({ count: 2_000, seed: 9, start, spanMs: 86_400_000 })];
    expect((await buildReport(memory(day))).series.bucket).toBe("15m");
    // A closed window decides the size, whatever the events' spread.
    const windowed = await buildReport(memory(tenMinutes), {
      window: { since: start, until: start + 7 * 86_400_000 },
    });
    expect(windowed.series.bucket).toBe("3h");
  });
});

describe("stepwise report on the wrong kind of input", () => {
  it("exits 2 with a clear message for a directory or a file that is not events", async () => {
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((text: unknown) => {
      errors.push(String(text));
    });
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    expect(await main(["report", directory])).toBe(2);
    expect(errors.join("\n")).toMatch(/is a directory, not an events file/);
    const yaml = await fileWith("Pulumi.dev.yaml", [
      "config:",
      "  stepwise:accountId: x",
      "  a: b",
    ]);
    expect(await main(["report", yaml])).toBe(2);
    // The message, then the usage error's hint (exit 2 says where the usage is).
    expect(errors.at(-2)).toMatch(
      /is not an events file: none of its first 3 record\(s\) is a call event \(line 1: not JSON/,
    );
    expect(errors.at(-1)).toBe('(run "stepwise report --help" for usage)');
    expect(errors.join("\n")).not.toMatch(/\n\s+at /);
  });
});

function memory(list: readonly CallEvent[]) {
  return {
    kind: "events" as const,
    name: "memory",
    stats: { records: list.length, malformed: 0, malformedSamples: [] },
    async *events() {
      yield* list;
    },
  };
}
