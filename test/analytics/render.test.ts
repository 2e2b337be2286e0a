import { describe, expect, it } from "vitest";
import { exactSampleLimit, relativeAccuracy } from "../../src/analytics/latency-sketch.ts";
import { percent } from "../../src/analytics/render/format.ts";
import {
  csvColumns,
  renderCsv,
  renderJson,
  renderTable,
} from "../../src/analytics/render/index.ts";
import { buildReport, type Report } from "../../src/analytics/report.ts";
import { parseCsvRecord } from "../../src/analytics/sources/csv.ts";
import type { EventSource } from "../../src/analytics/sources/types.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { generateEvents } from "../../tools/scripts/generate-events.ts";
import {
  type ReferenceFigures,
  referenceFigures,
  referenceGroups,
  referenceWindow,
} from "./reference.ts";

const start = Date.parse("2026-05-01T00:00:00Z");
// Two days of traffic; the report covers the second day and compares it with the first.
const events = [...generateEvents({ count: 4_000, seed: 21, start, spanMs: 2 * 86_400_000 })];
const since = start + 86_400_000;
const until = start + 2 * 86_400_000;

function memorySource(list: readonly CallEvent[]): EventSource {
  return {
    kind: "events",
    name: "memory.jsonl",
    stats: { records: list.length, malformed: 0, malformedSamples: [] },
    async *events() {
      yield* list;
    },
  };
}

async function report(): Promise<Report> {
  return buildReport(memorySource(events), {
    window: { since, until },
    bucketMs: 6 * 3_600_000,
    compareWindow: { since: start, until: since },
    now: () => until,
  });
}

const inside = referenceWindow(events, since, until);
const baseline = referenceWindow(events, start, since);
const dimensions = ["gateway", "route", "step", "provider", "model"] as const;

/** Table cells are split on runs of two or more spaces (no value contains two spaces). */
function tableSection(text: string, title: string): string[][] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes
  const lines = text.replace(/\u001b\[[0-9;]*m/g, "").split("\n");
  const begin = lines.findIndex((line) => line.startsWith(title));
  const end = lines.findIndex((line, index) => index > begin && line.trim() === "");
  return lines
    .slice(begin + 1, end === -1 ? undefined : end)
    .map((line) => line.trim().split(/\s{2,}/));
}

/** One display unit: two decimals, and rates near 0 or 1 are never shown as exactly 0 % or 100 %. */
const percentTolerance = 0.0001;
const parsePercent = (text: string) => Number(text.replace("%", "")) / 100;
const parseNumber = (text: string) => Number(text.replaceAll(",", "").replace("$", ""));

function expectDisplayed(cells: string[], expected: ReferenceFigures, scopeCalls: number): void {
  const [
    calls,
    share,
    success,
    availability,
    fallback,
    p50,
    p95,
    p99,
    tokensIn,
    tokensOut,
    cost,
    cache,
  ] = cells;
  expect(parseNumber(calls ?? "")).toBe(expected.calls);
  expect(Math.abs(parsePercent(share ?? "") - expected.calls / scopeCalls)).toBeLessThanOrEqual(
    percentTolerance,
  );
  expect(Math.abs(parsePercent(success ?? "") - (expected.successRate ?? 0))).toBeLessThanOrEqual(
    percentTolerance,
  );
  expect(
    Math.abs(parsePercent(availability ?? "") - (expected.availability ?? 0)),
  ).toBeLessThanOrEqual(percentTolerance);
  expect(Math.abs(parsePercent(fallback ?? "") - (expected.fallbackRate ?? 0))).toBeLessThanOrEqual(
    percentTolerance,
  );
  for (const [text, value] of [
    [p50, expected.p50LatencyMs],
    [p95, expected.p95LatencyMs],
    [p99, expected.p99LatencyMs],
  ] as const) {
    // Display rounds to whole ms; above 1,024 calls the sketch adds its documented ±1 %.
    const tolerance =
      0.5 + (expected.calls > exactSampleLimit ? (value ?? 0) * relativeAccuracy : 0);
    expect(Math.abs(parseNumber(text ?? "") - (value ?? 0))).toBeLessThanOrEqual(tolerance);
  }
  expect(parseNumber(tokensIn ?? "")).toBe(expected.tokensIn);
  expect(parseNumber(tokensOut ?? "")).toBe(expected.tokensOut);
  expect(Math.abs(parseNumber(cost ?? "") - expected.cost)).toBeLessThanOrEqual(0.00005);
  if (expected.cacheHitRate === null) expect(cache).toBe("—");
  else
    expect(Math.abs(parsePercent(cache ?? "") - expected.cacheHitRate)).toBeLessThanOrEqual(
      percentTolerance,
    );
}

describe("renderers", () => {
  it("shows 100 % and 0 % only when exact", () => {
    expect([1, 0.99998, 0.9999, 0.98765, 0.00002, 0, null].map((rate) => percent(rate))).toEqual([
      "100.00%",
      "99.99%",
      "99.99%",
      "98.77%",
      "0.01%",
      "0.00%",
      "—",
    ]);
  });

  it("prints a table whose every number is the plain recomputation, rounded for display", async () => {
    const text = renderTable(await report());
    const groups = referenceGroups(inside, dimensions);
    const rows = tableSection(text, "By gateway · route · step · provider · model");
    expect(rows[0]).toEqual([
      "gateway",
      "route",
      "step",
      "provider",
      "model",
      "calls",
      "share",
      "success",
      "availability",
      "fallback",
      "p50 ms",
      "p95 ms",
      "p99 ms",
      "tokens in",
      "tokens out",
      "cost",
      "cache hits",
    ]);
    const body = rows.slice(1, -1);
    expect(body).toHaveLength(groups.size);
    for (const cells of body) {
      const [gateway, route, step, provider, model, ...figures] = cells;
      const key = JSON.stringify({
        gateway,
        route,
        step: step === "none" ? null : Number(step),
        provider,
        model,
      });
      expectDisplayed(
        figures,
        referenceFigures(groups.get(key) ?? [], inside.length),
        inside.length,
      );
    }
    const total = rows.at(-1) ?? [];
    expect(total[0]).toBe("total");
    expectDisplayed(total.slice(1), referenceFigures(inside, inside.length), inside.length);

    const routes = tableSection(text, "Routes");
    const routeGroups = referenceGroups(inside, ["gateway", "route"]);
    for (const [gateway, route, calls, , availability, , step0] of routes.slice(1)) {
      const expected = referenceFigures(
        routeGroups.get(JSON.stringify({ gateway, route })) ?? [],
        inside.length,
      );
      expect(parseNumber(calls ?? "")).toBe(expected.calls);
      expect(
        Math.abs(parsePercent(availability ?? "") - (expected.availability ?? 0)),
      ).toBeLessThanOrEqual(percentTolerance);
      expect(
        Math.abs(parsePercent(step0 ?? "") - (expected.steps["0"] ?? 0) / expected.calls),
      ).toBeLessThanOrEqual(percentTolerance);
    }
    expect(text).toContain(
      `window ${new Date(since).toISOString()} → ${new Date(until).toISOString()} · ${inside.length.toLocaleString("en-US")} calls counted`,
    );
    expect(text).toMatch(/Per 6h \(step share/);
    expect(text).toMatch(/Change vs 2026-05-01T00:00:00.000Z → 2026-05-02T00:00:00.000Z/);
  });

  it("writes CSV that parses back to the exact figures", async () => {
    const built = await report();
    const lines = renderCsv(built).trimEnd().split("\n");
    const [header, ...rows] = lines.map(parseCsvRecord);
    expect(header).toEqual([...csvColumns]);
    const records = rows.map((row) =>
      Object.fromEntries((header ?? []).map((name, index) => [name, row[index] ?? ""])),
    );
    const number = (text: string | undefined) =>
      text === "" || text === undefined ? null : Number(text);

    const total = records.find((record) => record.period === "current" && record.scope === "total");
    const expected = referenceFigures(inside, inside.length);
    expect(number(total?.calls)).toBe(expected.calls);
    expect(number(total?.availability)).toBe(expected.availability);
    expect(number(total?.fallback_rate)).toBe(expected.fallbackRate);
    expect(number(total?.p99_latency_ms)).toBe(built.totals.p99LatencyMs);
    expect(number(total?.cost)).toBeCloseTo(expected.cost, 9);

    const groups = referenceGroups(inside, dimensions);
    const groupRecords = records.filter(
      (record) => record.period === "current" && record.scope === "group",
    );
    expect(groupRecords).toHaveLength(groups.size);
    for (const record of groupRecords) {
      const key = JSON.stringify({
        gateway: record.gateway,
        route: record.route,
        step: record.step === "none" ? null : Number(record.step),
        provider: record.provider,
        model: record.model,
      });
      const figures = referenceFigures(groups.get(key) ?? [], inside.length);
      expect([
        number(record.calls),
        number(record.success_rate),
        number(record.cache_hit_rate),
        number(record.tokens_in),
      ]).toEqual([figures.calls, figures.successRate, figures.cacheHitRate, figures.tokensIn]);
    }
    const buckets = records.filter((record) => record.scope === "bucket");
    expect(buckets.map((record) => record.bucket_start)).toEqual([
      "2026-05-02T00:00:00.000Z",
      "2026-05-02T06:00:00.000Z",
      "2026-05-02T12:00:00.000Z",
      "2026-05-02T18:00:00.000Z",
    ]);
    expect(buckets.reduce((sum, record) => sum + (number(record.calls) ?? 0), 0)).toBe(
      inside.length,
    );
    const baselineTotal = records.find(
      (record) => record.period === "baseline" && record.scope === "total",
    );
    expect(number(baselineTotal?.calls)).toBe(baseline.length);
    expect(number(baselineTotal?.fallback_rate)).toBe(
      referenceFigures(baseline, baseline.length).fallbackRate,
    );
  });

  it("writes JSON with the whole report, comparison deltas included", async () => {
    const built = await report();
    const parsed = JSON.parse(renderJson(built)) as Report;
    expect(parsed).toEqual(JSON.parse(JSON.stringify(built)));
    const current = referenceFigures(inside, inside.length);
    const before = referenceFigures(baseline, baseline.length);
    expect(parsed.comparison?.totals.calls).toEqual({
      baseline: before.calls,
      current: current.calls,
      delta: current.calls - before.calls,
      relative: (current.calls - before.calls) / before.calls,
    });
    expect(parsed.comparison?.totals.fallbackRate.delta).toBeCloseTo(
      (current.fallbackRate ?? 0) - (before.fallbackRate ?? 0),
      12,
    );
    expect(parsed.comparison?.baseline).toMatchObject({
      since: "2026-05-01T00:00:00.000Z",
      until: "2026-05-02T00:00:00.000Z",
      counted: baseline.length,
    });
    // A group seen in only one window compares against 0 calls and unknown rates.
    const groupKeys = new Set([
      ...referenceGroups(inside, dimensions).keys(),
      ...referenceGroups(baseline, dimensions).keys(),
    ]);
    expect(parsed.comparison?.groups).toHaveLength(groupKeys.size);
  });
});
