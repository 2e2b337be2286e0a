/**
 * The DuckDB engine gives the JS reader's report: on the generator's events (seeded, with the
 * scripted outage, 429 storm and revoked key, streamed and not) decorated with everything else an
 * event can carry (failed steps with their reasons, skipped and demoted steps, hedges, a routing
 * policy over budget, metadata, fetch calls through each endpoint), every count, rate, token and
 * cost is the same number, and each latency quantile is within the report's ±1 %. The text, CSV
 * and HTML renderings are then the same page once the latencies are the JS reader's. A file with
 * malformed lines is handed to the JS reader, whose report (malformed counts and samples) it is.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDuckdbEngine } from "../../../src/analytics/duckdb/duckdb-events.ts";
import { buildReport, type Dimension, type Report } from "../../../src/analytics/index.ts";
import { renderCsv, renderHtml, renderTable } from "../../../src/analytics/render/index.ts";
import type { ReportOptions } from "../../../src/analytics/report.ts";
import { eventsFileSource } from "../../../src/analytics/sources/events-file.ts";
import type { CallEvent } from "../../../src/client/event.ts";
import {
  createRandom,
  generateEventLines,
  generateEvents,
  writeEventLines,
} from "../../../tools/scripts/generate-events.ts";

const start = Date.parse("2026-05-01T00:00:00Z");
let directory = "";
let plain = "";
let decorated = "";
let malformed = "";

/** The generator's event with what else a client's event can carry, picked by a seeded roll. */
function decorate(event: CallEvent, roll: () => number): CallEvent {
  const copy: CallEvent = { ...event };
  const dice = roll();
  if (!copy.ok && dice < 0.5) {
    copy.failedSteps = [
      {
        step: 0,
        provider: "openai",
        model: "gpt-4o-mini",
        status: 503,
        errorCode: "upstream_error",
        at: "request",
      },
      ...(dice < 0.2
        ? [
            {
              step: 1,
              provider: "anthropic",
              model: "claude-sonnet-4-5",
              status: null,
              errorCode: null,
              at: "request" as const,
            },
          ]
        : []),
    ];
  } else if (copy.step === 1 && dice < 0.3) {
    copy.failedSteps = [
      {
        step: 0,
        provider: "openai",
        model: "gpt-4o-mini",
        status: 200,
        errorCode: "incomplete_stream",
        at: "mid-stream",
      },
    ];
    copy.discardedChars = 40;
  }
  if (dice > 0.9) {
    copy.skippedSteps = [{ step: 0, provider: "openai", model: "gpt-4o-mini", reason: "rpm_cap" }];
    copy.demotedSteps =
      dice > 0.95
        ? [{ step: 1, provider: "anthropic", model: "claude-sonnet-4-5", reason: "down" }]
        : [];
  } else if (dice > 0.85) {
    copy.hedges = [
      {
        step: 1,
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        afterMs: 100,
        sent: dice > 0.87,
        kept: dice > 0.88 ? "hedge" : "primary",
        extraCost: dice > 0.87 ? 0.000_123_4 : 0,
        ...(dice > 0.87 ? {} : { reason: "cost_cap" as const }),
      },
    ];
  }
  if (dice < 0.05)
    copy.policy = { chain: "cheap", rule: 0, budget: dice < 0.02 ? "over" : "within" };
  // A latency the sketch counts as 0.
  if (roll() < 0.02) copy.latencyMs = 0;
  const plan = roll();
  if (plan < 0.7)
    copy.metadata = { plan: plan < 0.4 ? "free" : "pro", ...(plan < 0.1 ? { tier: 2 } : {}) };
  if (roll() < 0.1) {
    copy.mode = "fetch";
    if (roll() < 0.8) copy.endpoint = roll() < 0.5 ? "provider" : "rest";
  }
  return copy;
}

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-duckdb-"));
  plain = path.join(directory, "plain.jsonl");
  decorated = path.join(directory, "decorated.jsonl");
  malformed = path.join(directory, "malformed.jsonl");
  const options = { count: 6_000, seed: 5, start, spanMs: 86_400_000 };
  await writeEventLines(plain, generateEventLines(options));
  const roll = createRandom(11);
  await writeEventLines(
    decorated,
    [...generateEvents(options)].map((event) => JSON.stringify(decorate(event, roll))),
  );
  await writeEventLines(malformed, generateEventLines({ ...options, malformedEvery: 500 }));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function both(file: string, options: ReportOptions) {
  const notes: string[] = [];
  const js = await buildReport(eventsFileSource(file), { ...options, now: () => 0 });
  const duckdb = await buildReport(
    withDuckdbEngine(file, eventsFileSource(file), { onFallback: (reason) => notes.push(reason) }),
    { ...options, now: () => 0 },
  );
  return { js, duckdb, notes };
}

const latencyFields = ["p50LatencyMs", "p95LatencyMs", "p99LatencyMs"] as const;

/**
 * Asserts every latency quantile of `duckdb` within ±1 % of `js`'s (exact for small groups, the
 * same sketch bucket for large ones), then gives `duckdb` with `js`'s latencies.
 */
function withJsLatencies(duckdb: unknown, js: unknown, at = "report"): unknown {
  if (Array.isArray(duckdb) && Array.isArray(js)) {
    expect(duckdb.length, at).toBe(js.length);
    return duckdb.map((item, index) => withJsLatencies(item, js[index], `${at}[${index}]`));
  }
  if (duckdb === null || typeof duckdb !== "object" || js === null || typeof js !== "object")
    return duckdb;
  const own = duckdb as Record<string, unknown>;
  const theirs = js as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(own)) {
    if ((latencyFields as readonly string[]).includes(key) && typeof value === "number") {
      const expected = theirs[key] as number;
      expect(Math.abs(value - expected), `${at}.${key}`).toBeLessThanOrEqual(
        0.010_01 * expected + 1e-9,
      );
      result[key] = expected;
    } else if ((latencyFields as readonly string[]).includes(key) && value !== null) {
      // A comparison's latency: baseline and current within ±1 %, the deltas follow from them.
      const change = value as Record<string, number | null>;
      const expected = theirs[key] as Record<string, number | null>;
      for (const end of ["baseline", "current"]) {
        const [got, want] = [change[end], expected[end]];
        if (typeof got === "number" && typeof want === "number")
          expect(Math.abs(got - want), `${at}.${key}.${end}`).toBeLessThanOrEqual(
            0.010_01 * want + 1e-9,
          );
        else expect(got, `${at}.${key}.${end}`).toBe(want);
      }
      result[key] = expected;
    } else if (key === "latencyExact") result[key] = theirs[key];
    else result[key] = withJsLatencies(value, theirs[key], `${at}.${key}`);
  }
  return result;
}

const cases: [string, ReportOptions][] = [
  ["the default grouping", {}],
  [
    "--by route with a window and --compare",
    {
      dimensions: ["gateway", "route"],
      window: { since: start + 3_600_000, until: start + 20 * 3_600_000 },
      compareWindow: { since: start, until: start + 3_600_000 },
    },
  ],
  [
    "--by metadata.plan,metadata.tier,endpoint with --bucket 1h",
    {
      dimensions: ["gateway", "route", "metadata.plan", "metadata.tier", "endpoint"] as Dimension[],
      bucketMs: 3_600_000,
    },
  ],
  ["--gateway and --route filters", { gateways: ["chat-prod"], routes: ["default", "fast"] }],
  ["--by provider", { dimensions: ["provider"] }],
  // The file's ends span a day (15 min buckets); the counted calls an hour: the query runs again.
  ["an open window's last hour", { window: { since: start + 23 * 3_600_000, until: null } }],
];

describe("the DuckDB engine", () => {
  it.each(cases)("gives the JS reader's report on decorated events: %s", async (_, options) => {
    const { js, duckdb, notes } = await both(decorated, options);
    expect(notes).toEqual([]);
    expect(js.counted).toBeGreaterThan(0);
    const same = withJsLatencies(duckdb, js) as Report;
    expect(same).toEqual(js);
    expect(renderTable(same)).toBe(renderTable(js));
    expect(renderCsv(same)).toBe(renderCsv(js));
    expect(renderHtml(same)).toBe(renderHtml(js));
  });

  it("gives the JS reader's figures on the generator's own events", async () => {
    const { js, duckdb, notes } = await both(plain, { dimensions: ["gateway", "route", "step"] });
    expect(notes).toEqual([]);
    expect(withJsLatencies(duckdb, js)).toEqual(js);
    expect(duckdb.totals.cost).toBe(js.totals.cost);
    expect(duckdb.source.records).toBe(6_000);
  });

  it("hands a file with a time in another ISO form to the JS reader, which reads it", async () => {
    const other = path.join(directory, "other-time.jsonl");
    const lines = [...generateEventLines({ count: 40, seed: 4, start })];
    lines[7] = JSON.stringify({ ...JSON.parse(lines[7] ?? "{}"), time: "2026-05-01T00:00:05Z" });
    await writeEventLines(other, lines);
    const { js, duckdb, notes } = await both(other, {});
    expect(notes).toHaveLength(1);
    expect(duckdb).toEqual(js);
    expect(duckdb).toMatchObject({ counted: 40, source: { malformed: 0 } });
  });

  it("hands a file with malformed lines to the JS reader, which counts and lists them", async () => {
    const { js, duckdb, notes } = await both(malformed, {});
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/DuckDB could not read it|not events DuckDB can vouch for/);
    expect(duckdb).toEqual(js);
    expect(duckdb.source.malformed).toBe(12);
    expect(duckdb.source.malformedSamples).toHaveLength(5);
  });
});

describe("the decorated events", () => {
  it("carry what the engines must agree on: steering, hedges, failure reasons, budgets", async () => {
    const js = await buildReport(eventsFileSource(decorated), {
      dimensions: ["metadata.plan" as Dimension],
      now: () => 0,
    });
    const text = JSON.stringify(js);
    for (const needle of ["rpm_cap", "cost_cap", "stream_break", "server_error", '"down"'])
      expect(text).toContain(needle);
    expect(js.totals.budgetHits).toBeGreaterThan(0);
    expect(js.source.malformed).toBe(0);
  });
});
