/**
 * The routing policy in the report: the client's events carry the metadata each call sent and
 * the policy's decision, so an events file groups by plan and tier (`--by metadata.<key>`) with
 * cost and fallback rate per tier, and counts the calls a spent budget sent elsewhere (a column
 * only when there are some).
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderCsv, renderTable } from "../../src/analytics/render/index.ts";
import { buildReport } from "../../src/analytics/report.ts";
import { eventsFileSource } from "../../src/analytics/sources/events-file.ts";
import type { CallEvent } from "../../src/client/event.ts";

const base: CallEvent = {
  time: "2026-05-01T12:00:00.000Z",
  id: "x",
  gateway: "chat-prod",
  route: "assistant",
  mode: "universal",
  step: 0,
  provider: "openai",
  model: "gpt-4o-mini",
  status: 200,
  ok: true,
  cacheStatus: "MISS",
  latencyMs: 100,
  tokensIn: 10,
  tokensOut: 20,
  cost: 0.001,
  errorCode: null,
  logId: null,
  attempts: 1,
  streamed: false,
};

const call = (
  plan: string,
  tier: string,
  policy: CallEvent["policy"],
  extra: Partial<CallEvent> = {},
): CallEvent => ({
  ...base,
  id: `${plan}-${tier}-${Math.random()}`,
  metadata: { route: "assistant", plan, tier },
  policy,
  ...extra,
});

const events: CallEvent[] = [
  call("pro", "complex", { chain: "frontier", rule: 2, budget: "within" }, { cost: 0.01 }),
  call("pro", "complex", { chain: "frontier", rule: 2, budget: "within" }, { cost: 0.01, step: 1 }),
  call("pro", "complex", { chain: "default", rule: 2, budget: "over" }, { cost: 0.002 }),
  call("pro", "simple", { chain: "candidate", rule: 3 }, { cost: 0.001 }),
  call("free", "simple", { chain: "economy", rule: 1 }, { cost: 0.0005, step: 1 }),
  // A call without a policy decision (another route) still groups by its metadata.
  { ...base, id: "plain", route: "default", metadata: { plan: "free", tier: "simple" } },
];

async function reportOf(lines: readonly CallEvent[]) {
  const directory = await mkdtemp(path.join(tmpdir(), "stepwise-policy-report-"));
  const file = path.join(directory, "events.jsonl");
  await writeFile(file, `${lines.map((event) => JSON.stringify(event)).join("\n")}\n`);
  return buildReport(eventsFileSource(file), {
    dimensions: ["metadata.plan", "metadata.tier"],
  });
}

describe("the report of a routing policy", () => {
  it("groups an events file by plan and tier, with cost, fallback rate and budget hits", async () => {
    const report = await reportOf(events);
    const rows = report.groups.map((row) => ({
      plan: row.key["metadata.plan"],
      tier: row.key["metadata.tier"],
      calls: row.figures.calls,
      cost: Number(row.figures.cost.toFixed(6)),
      fallbackRate: row.figures.fallbackRate,
      budgetHits: row.figures.budgetHits,
    }));
    expect(rows).toEqual([
      { plan: "free", tier: "simple", calls: 2, cost: 0.0015, fallbackRate: 0.5, budgetHits: 0 },
      { plan: "pro", tier: "complex", calls: 3, cost: 0.022, fallbackRate: 1 / 3, budgetHits: 1 },
      { plan: "pro", tier: "simple", calls: 1, cost: 0.001, fallbackRate: 0, budgetHits: 0 },
    ]);
    expect(report.totals.budgetHits).toBe(1);
    expect(report.source.malformed).toBe(0);
  });

  it("shows an over-budget column in the table and the CSV", async () => {
    const report = await reportOf(events);
    const table = renderTable(report);
    expect(table).toMatch(/metadata\.plan\s+metadata\.tier\s+calls.*over budget/);
    expect(table).toMatch(/pro\s+complex\s+3\s.*\s1$/m);
    const [header, total] = renderCsv(report).split("\n");
    const column = header!.split(",").indexOf("budget_hits");
    expect(column).toBeGreaterThan(0);
    expect(total!.split(",")[column]).toBe("1");
  });

  it("leaves the column out of a report without budget hits", async () => {
    const report = await reportOf(events.filter((event) => event.policy?.budget !== "over"));
    expect(renderTable(report)).not.toContain("over budget");
  });

  it("groups numbers and booleans in metadata as text, as the gateway's logs store them", async () => {
    const report = await buildReport(
      {
        kind: "events",
        name: "memory",
        stats: { records: 2, malformed: 0, malformedSamples: [] },
        async *events() {
          yield { ...base, metadata: { seats: 5 } };
          yield { ...base, metadata: { seats: "5" } };
        },
      },
      { dimensions: ["metadata.seats"] },
    );
    expect(report.groups.map((row) => [row.key["metadata.seats"], row.figures.calls])).toEqual([
      ["5", 2],
    ]);
  });
});
