/**
 * The `stepwise report` commands of the README and docs/analytics.md, run as written on an
 * `events.jsonl` of the last 36 hours (generated with the dev stack's routes, outages and prices),
 * each checked against what the text says it does.
 */
import { existsSync, readFileSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEvents, writeEventLines } from "../../tools/scripts/generate-events.ts";
import { documented, makeSandbox, projectRoot, runDocumented, type Sandbox } from "./documented.ts";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await makeSandbox();
  const spanMs = 36 * 3_600_000;
  const events = generateEvents({ count: 3_000, seed: 5, start: Date.now() - spanMs, spanMs });
  await writeEventLines(
    path.join(sandbox.directory, "events.jsonl"),
    (function* () {
      for (const event of events) yield JSON.stringify(event);
    })(),
  );
  // What docs/worker.md's SQL query writes (FORMAT JSONEachRow), with two malformed lines.
  await copyFile(
    path.join(projectRoot, "test/__fixtures__/analytics/ae-export.jsonl"),
    path.join(sandbox.directory, "points.jsonl"),
  );
});

afterAll(async () => {
  await sandbox?.remove();
});

const run = (command: string) => runDocumented(command, { sandbox });

/** `fallback 13.56%` in the Totals line, as a fraction. */
function totalsFigure(stdout: string, name: string): number {
  const match = new RegExp(`Totals .*${name} ([\\d.]+)%`).exec(stdout);
  if (!match) throw new Error(`no ${name} in the totals:\n${stdout}`);
  return Number(match[1]) / 100;
}

describe("stepwise report, as the docs show it", () => {
  it("prints the step-rate tables of an events file (docs/analytics.md's example)", async () => {
    const result = await run(documented("npx stepwise report events.jsonl"));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Step rates · events\.jsonl \(events\)\n/);
    expect(result.stdout).toMatch(/\nwindow \S+ → \S+ · 3,000 calls counted\n/);
    expect(result.stdout).toMatch(/\nTotals {2}calls 3,000 · success [\d.]+% · availability/);
    expect(result.stdout).toContain("Routes (step share of each route's calls)");
  });

  it("gives the same figures with --engine duckdb as with --engine js (docs/analytics.md's engines)", async () => {
    const duckdb = await run(
      documented("npx stepwise report events.jsonl --engine duckdb --json > duckdb.json"),
    );
    expect(duckdb.code, duckdb.output).toBe(0);
    // A clean file: DuckDB read it (no note that the JS engine took over).
    expect(duckdb.stderr).not.toContain("read by the JS engine");
    const js = await run(
      documented("npx stepwise report events.jsonl --engine js --json > js.json"),
    );
    expect(js.code, js.output).toBe(0);
    const read = (name: string) =>
      JSON.parse(readFileSync(path.join(sandbox.directory, name), "utf8")) as {
        counted: number;
        totals: Record<string, unknown>;
        routes: { key: unknown; figures: Record<string, unknown> }[];
      };
    const exact = ({ counted, totals, routes }: ReturnType<typeof read>) => ({
      counted,
      totals: { ...totals, p50LatencyMs: 0, p95LatencyMs: 0, p99LatencyMs: 0, latencyExact: 0 },
      routes: routes.map(({ key, figures }) => ({ key, cost: figures.cost, calls: figures.calls })),
    });
    expect(read("duckdb.json").counted).toBe(3_000);
    expect(exact(read("duckdb.json"))).toEqual(exact(read("js.json")));
  });

  it("keeps to one route with --route", async () => {
    const result = await run(documented("npx stepwise report events.jsonl --route default"));
    expect(result.code).toBe(0);
    const routes = result.stdout.split("Routes (step share of each route's calls)")[1] ?? "";
    expect(routes).toMatch(/chat-prod\s+default/);
    expect(routes).not.toMatch(/\s(fast|long-context|summarise)\s/);
  });

  it("groups by provider over the last 24 h and compares with the 24 h before", async () => {
    const result = await run(
      documented("npx stepwise report events.jsonl --by provider --since 24h --compare previous"),
    );
    expect(result.code, result.output).toBe(0);
    expect(result.stdout).toMatch(/\nBy provider\n/);
    expect(result.stdout).toMatch(/\nanthropic\s+\d/);
    // The comparison: the 24 h before the window, and each group's change.
    expect(result.stdout).toMatch(/\nChange vs \S+ → \S+ \([\d,]+ calls\)\n/);
  });

  it("writes a self-contained HTML report with a chart", async () => {
    const result = await run(
      documented("npx stepwise report events.jsonl --bucket 5m --html report.html"),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("HTML report written to report.html");
    const html = readFileSync(path.join(sandbox.directory, "report.html"), "utf8");
    expect(html).toContain("<svg");
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it("writes CSV to a file", async () => {
    const result = await run(documented("npx stepwise report events.jsonl --csv > steps.csv"));
    expect(result.code).toBe(0);
    const file = path.join(sandbox.directory, "steps.csv");
    expect(existsSync(file)).toBe(true);
    const [header, ...rows] = readFileSync(file, "utf8").trim().split("\n");
    expect(header).toMatch(/,/);
    expect(rows.length).toBeGreaterThan(0);
  });

  it("exits 1 when the fallback rate is above the threshold, naming it (the README's alert)", async () => {
    const result = await run(
      documented("npx stepwise report events.jsonl --fail-above fallback-rate=0.05"),
    );
    const fallback = totalsFigure(result.stdout, "fallback");
    expect(fallback).toBeGreaterThan(0.05);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/threshold.*crossed[\s\S]*fallback-rate/);
  });

  it("prints the report, then exits 1 exactly when a threshold is crossed, naming each", async () => {
    const result = await run(
      documented(
        "npx stepwise report events.jsonl --since 1h --fail-above fallback-rate=0.05 --fail-below availability=0.99",
      ),
    );
    expect(result.stdout).toContain("Step rates · events.jsonl");
    const crossed = [
      totalsFigure(result.stdout, "fallback") > 0.05 ? "fallback-rate" : undefined,
      totalsFigure(result.stdout, "availability") < 0.99 ? "availability" : undefined,
    ].filter((metric) => metric !== undefined);
    expect(result.code).toBe(crossed.length > 0 ? 1 : 0);
    for (const metric of crossed) expect(result.stderr).toContain(metric);
  });

  it("reads the Worker's Analytics Engine points by route and step (docs/worker.md)", async () => {
    const result = await run(
      documented("npx stepwise report points.jsonl --source analytics-engine --by route,step"),
    );
    expect(result.code, result.output).toBe(0);
    expect(result.stdout).toMatch(/^Step rates · points\.jsonl \(analytics-engine\)\n/);
    expect(result.stdout).toMatch(/\nwindow \S+ → \S+ · 11 calls counted\n/);
    expect(result.stdout).toContain("By gateway · route · step");
  });
});
