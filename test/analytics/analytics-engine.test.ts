import path from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { buildReport } from "../../src/analytics/report.ts";
import { analyticsEngineSource, rowToEvent } from "../../src/analytics/sources/analytics-engine.ts";
import type { EventSource } from "../../src/analytics/sources/types.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { encodeCallPoint } from "../../src/worker/analytics-schema.ts";

const fixtures = path.resolve(import.meta.dirname, "../__fixtures__/analytics");

async function read(source: EventSource): Promise<CallEvent[]> {
  const events: CallEvent[] = [];
  for await (const event of source.events()) events.push(event);
  return events;
}

describe("Analytics Engine SQL exports", () => {
  it.each([
    [
      "JSON (FORMAT JSON)",
      "ae-export.json",
      [{ line: 6, reason: expect.stringMatching(/gateway/) }],
    ],
    ["CSV with a header", "ae-export.csv", [{ line: 7, reason: expect.stringMatching(/gateway/) }]],
    [
      "JSON lines (FORMAT JSONEachRow)",
      "ae-export.jsonl",
      [
        { line: 6, reason: "not a JSON object" },
        { line: 7, reason: expect.stringMatching(/gateway/) },
      ],
    ],
  ])("reads %s with the documented column mapping", async (_, file, malformed) => {
    const source = analyticsEngineSource(path.join(fixtures, file));
    const events = await read(source);
    // 7 good rows; one stands for 4 calls and one for 2 (_sample_interval), so 11 events.
    expect(events).toHaveLength(11);
    expect(source.stats.malformedSamples).toEqual(malformed);
    expect(source.stats.malformed).toBe(malformed.length);
    expect(events[0]).toEqual({
      time: "2026-05-01T00:00:05.000Z",
      id: expect.stringMatching(/^ae-/),
      gateway: "chat-prod",
      route: "default",
      mode: "fetch",
      step: 0,
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      status: 200,
      ok: true,
      cacheStatus: "MISS",
      latencyMs: 812.5,
      tokensIn: 640,
      tokensOut: 210,
      cost: 0.00507,
      errorCode: null,
      logId: null,
      attempts: 1,
      streamed: false,
    });
    expect(events[2]).toMatchObject({
      step: null,
      status: 503,
      ok: false,
      errorCode: "all_steps_failed",
      tokensIn: null,
      cost: null,
      cacheStatus: null,
    });
    expect(events.slice(3, 7).every((event) => event.provider === "groq")).toBe(true);
    expect(events[7]).toMatchObject({ model: "gpt-4o-mini, 2024-07-18", step: 1 });
    expect(events[8]).toMatchObject({
      status: 400,
      ok: false,
      errorCode: "bad_request",
      tokensIn: 120,
      tokensOut: null,
    });
  });

  it("gives the same figures whichever format the export used", async () => {
    const reports = await Promise.all(
      ["ae-export.json", "ae-export.csv", "ae-export.jsonl"].map((file) =>
        buildReport(analyticsEngineSource(path.join(fixtures, file)), {
          dimensions: ["route", "step"],
          now: () => 0,
        }),
      ),
    );
    const [json, ...others] = reports;
    for (const report of others) {
      expect(report.totals).toEqual(json?.totals);
      expect(report.groups).toEqual(json?.groups);
    }
    // 11 calls: 7 ok (one row stands for 4), fallbacks at step 1 in default and fast; the 400 is
    // answered but not ok; the 503 and the two 429s count against availability.
    expect(json?.totals).toMatchObject({ calls: 11, fallbacks: 2, ok: 7, answered: 8 });
  });

  it("reads aliased columns from stdin", async () => {
    const csv = [
      "time,gateway,route,provider,model,errorCode,step,status,latency_ms,tokens_in,tokens_out,cost",
      "2026-05-01T10:00:00Z,chat-prod,default,openai,gpt-4o-mini,,1,200,420,10,20,0.001",
      "",
    ].join("\n");
    const events = await read(analyticsEngineSource("-", { stdin: Readable.from([csv]) }));
    expect(events).toEqual([
      expect.objectContaining({
        time: "2026-05-01T10:00:00.000Z",
        gateway: "chat-prod",
        step: 1,
        status: 200,
        ok: true,
        latencyMs: 420,
        cost: 0.001,
        cacheStatus: null,
      }),
    ]);
  });

  it("reads back what the Worker writes (encodeCallPoint), with the one schema", () => {
    const point = encodeCallPoint({
      gateway: "chat-prod",
      route: "default",
      provider: "openai",
      model: "gpt-4o-mini",
      errorCode: null,
      cacheStatus: "MISS",
      app: "0123456789ab",
      mode: "universal",
      keySource: "current",
      eventId: "call-42",
      metadata: { route: "default" },
      step: 1,
      status: 200,
      latencyMs: 250,
      ok: true,
      tokensIn: 12,
      tokensOut: 34,
      cost: 0.0002,
    });
    const row: Record<string, unknown> = { timestamp: "2026-05-01 10:00:00" };
    point.blobs.forEach((blob, index) => {
      row[`blob${index + 1}`] = blob;
    });
    point.doubles.forEach((double, index) => {
      row[`double${index + 1}`] = double;
    });
    const mapped = rowToEvent(row, 1);
    expect(mapped.ok && mapped.event).toMatchObject({
      id: "call-42",
      time: "2026-05-01T10:00:00.000Z",
      route: "default",
      mode: "universal",
      step: 1,
      provider: "openai",
      ok: true,
      tokensIn: 12,
      tokensOut: 34,
      cost: 0.0002,
    });
  });

  it("explains what to export when the file is not an export", async () => {
    const source = analyticsEngineSource("-", { stdin: Readable.from(["a,b,c\n1,2,3\n"]) });
    await expect(read(source)).rejects.toThrow(/not an Analytics Engine export.*FORMAT JSON/);
    const broken = analyticsEngineSource("-", {
      stdin: Readable.from(['{"meta": [], "data": [\n']),
    });
    await expect(read(broken)).rejects.toThrow(/not valid JSON/);
  });
});
