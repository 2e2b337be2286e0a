/**
 * Client steering in `stepwise report`: from an events file the real client recorded against the
 * emulator (`steering-events.ts`), the report counts per route and step the calls that skipped or
 * demoted a step, with reasons and shares, and the hedges (due, sent, not sent, won, estimated
 * extra cost) — in the table, JSON, CSV and HTML; and what the events did not record stays `—`
 * (null, an empty cell), never 0.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseEventLine } from "../../src/analytics/event-schema.ts";
import type { Report } from "../../src/analytics/report.ts";
import { reportCommand } from "../../src/cli/commands/report.ts";
import type { CallEvent } from "../../src/client/event.ts";
import { promptCost, recordSteeredCalls } from "./steering-events.ts";

let directory = "";
let eventsFile = "";
let recorded: CallEvent[] = [];

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "stepwise-steering-report-"));
  eventsFile = path.join(directory, "events.jsonl");
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    await recordSteeredCalls(eventsFile);
  } finally {
    vi.useRealTimers();
  }
  recorded = (await readFile(eventsFile, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as CallEvent);
}, 60_000);

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Runs `stepwise report …args` through the command's action; returns what it printed. */
async function report(args: string[]): Promise<string> {
  let output = "";
  const command = reportCommand({
    now: () => Date.parse("2026-05-02T00:00:00.000Z"),
    env: {},
    write: (text) => {
      output += text;
    },
  }).exitOverride();
  await command.parseAsync(args, { from: "user" });
  return output;
}

const anthropicCost = promptCost("anthropic/claude-sonnet-4-5");
const openaiCost = promptCost("openai/gpt-4o-mini");

/** Strips ANSI colours from the terminal output. */
function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing colour codes is the point
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

describe("the client's recorded events", () => {
  it("took the paths the report is checked against", () => {
    expect(recorded.map((event) => [event.route, event.step, event.provider])).toEqual([
      ["default", 0, "anthropic"],
      ["default", 1, "openai"],
      ["default", 2, "workers-ai"],
      ["default", 1, "openai"],
      ["default", 0, "anthropic"],
      ["default", 1, "openai"],
      ["plain", 0, "workers-ai"],
    ]);
    // The guarded client records its lists on every call, empty when it steered nothing; the
    // bare client's call records none.
    expect(recorded.map((event) => event.skippedSteps?.length)).toEqual([
      0,
      1,
      1,
      0,
      0,
      0,
      undefined,
    ]);
    expect(recorded.map((event) => event.demotedSteps?.length)).toEqual([
      0,
      0,
      1,
      0,
      0,
      0,
      undefined,
    ]);
    expect(recorded[6]!.hedges).toBeUndefined();
    expect(recorded[2]!.demotedSteps).toEqual([
      { step: 1, provider: "openai", model: "gpt-4o-mini", reason: "down" },
    ]);
    expect(recorded.map((event) => event.hedges?.map((hedge) => hedge.kept) ?? [])).toEqual([
      [],
      [],
      [],
      ["hedge"],
      ["primary"],
      ["primary"],
      [],
    ]);
    expect(recorded[5]!.hedges![0]).toMatchObject({ sent: false, reason: "cost_cap" });
  });
});

describe("stepwise report: client steering", () => {
  it("counts skipped and demoted steps per route and step, with reasons and shares (JSON)", async () => {
    const json = JSON.parse(await report([eventsFile, "--json"])) as Report;
    const [assistant, plainRoute] = json.steering.routes;
    expect(assistant!.key).toEqual({ gateway: "chat-test", route: "default" });
    expect(assistant!.calls).toBe(6);
    expect(assistant!.skipped).toEqual({ calls: 2, outOf: 6, share: 2 / 6 });
    expect(assistant!.demoted).toEqual({ calls: 1, outOf: 6, share: 1 / 6 });
    expect(assistant!.steps).toEqual([
      {
        step: 0,
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        skipped: { calls: 2, outOf: 6, share: 2 / 6, reasons: { rpm_cap: 2 } },
        demoted: { calls: 0, outOf: 6, share: 0, reasons: {} },
      },
      {
        step: 1,
        provider: "openai",
        model: "gpt-4o-mini",
        skipped: { calls: 0, outOf: 6, share: 0, reasons: {} },
        demoted: { calls: 1, outOf: 6, share: 1 / 6, reasons: { down: 1 } },
      },
    ]);
    // The route without a guard's work or a hedge: not recorded, not zero.
    expect(plainRoute).toEqual({
      key: { gateway: "chat-test", route: "plain" },
      calls: 1,
      skipped: null,
      demoted: null,
      hedging: null,
      steps: [],
    });
    expect(json.steering.recorded).toBe(true);
    expect(json.steering.totals.skipped).toEqual({ calls: 2, outOf: 6, share: 2 / 6 });
  });

  it("counts hedges due, sent, not sent, won and their estimated extra cost (JSON)", async () => {
    const json = JSON.parse(await report([eventsFile, "--json"])) as Report;
    const hedging = json.steering.routes[0]!.hedging!;
    expect(hedging).toMatchObject({
      hedged: { calls: 2, outOf: 6, share: 2 / 6 },
      due: 3,
      sent: 2,
      notSent: { cost_cap: 1 },
      won: 1,
      winRate: 0.5,
      bothFailed: 0,
    });
    // Won: the primary (anthropic) was dropped; lost: the hedge (openai) was.
    expect(hedging.extraCost).toBeCloseTo(anthropicCost + openaiCost, 12);
    expect(json.steering.totals.hedging).toEqual(hedging);
  });

  it("shows the steering tables in the terminal, with — where nothing was recorded", async () => {
    const text = plain(await report([eventsFile]));
    expect(text).toContain("Client steering (share of each route's calls; — not recorded)");
    expect(text).toMatch(
      /chat-test\s+default\s+6\s+2 \(33\.33%\)\s+1 \(16\.67%\)\s+2 \(33\.33%\)\s+3\s+2\s+cost_cap 1\s+1 \(50\.00%\)\s+\$0\.0000\d\d/,
    );
    expect(text).toMatch(/chat-test\s+plain\s+1\s+—\s+—\s+—\s+—\s+—\s+—\s+—\s+—$/m);
    expect(text).toContain("Steps skipped or demoted (calls, share of the route's calls)");
    expect(text).toMatch(
      /default\s+0\s+anthropic\s+claude-sonnet-4-5\s+2 \(33\.33%\)\s+0 \(0\.00%\)\s+skipped: rpm_cap 2$/m,
    );
    expect(text).toMatch(
      /default\s+1\s+openai\s+gpt-4o-mini\s+0 \(0\.00%\)\s+1 \(16\.67%\)\s+demoted: down 1$/m,
    );
  });

  it("writes the figures to CSV: route rows, a row per steered step and reason, empty when unknown", async () => {
    const lines = (await report([eventsFile, "--csv"])).trim().split("\n");
    const header = lines[0]!.split(",");
    const rows = lines.slice(1).map((line) => {
      const cells = line.split(",");
      return Object.fromEntries(header.map((name, index) => [name, cells[index] ?? ""]));
    });
    const route = (name: string) =>
      rows.find((row) => row.scope === "route" && row.route === name)!;
    expect(route("default")).toMatchObject({
      skipped_calls: "2",
      demoted_calls: "1",
      hedged_calls: "2",
      hedges_due: "3",
      hedges_sent: "2",
      hedges_not_sent: "1",
      hedges_won: "1",
      hedge_win_rate: "0.5",
    });
    expect(Number(route("default").hedge_extra_cost)).toBeCloseTo(anthropicCost + openaiCost, 8);
    for (const column of ["skipped_calls", "demoted_calls", "hedged_calls", "hedge_extra_cost"]) {
      expect(route("plain")[column], column).toBe("");
    }
    const steps = rows
      .filter((row) => row.scope?.endsWith("-step"))
      .map((row) => [row.scope, row.step, row.provider, row.reason, row.steered_calls]);
    expect(steps).toEqual([
      ["skipped-step", "0", "anthropic", "", "2"],
      ["skipped-step", "0", "anthropic", "rpm_cap", "2"],
      ["demoted-step", "1", "openai", "", "1"],
      ["demoted-step", "1", "openai", "down", "1"],
    ]);
    // Every row has every column.
    for (const line of lines) expect(line.split(",")).toHaveLength(header.length);
  });

  it("puts the steering tables in the HTML page with raw values, null where unknown", async () => {
    const file = path.join(directory, "report.html");
    await report([eventsFile, "--html", file]);
    const html = await readFile(file, "utf8");
    const routeRow = (name: string) =>
      html.match(new RegExp(`<tr><td[^>]*>chat-test</td><td[^>]*>${name}</td>.*?</tr>`, "g"));
    const steering = html.slice(html.indexOf('id="steering"'));
    const [defaultRow] = routeRow("default")!.filter((row) => steering.includes(row));
    expect(defaultRow).toContain(
      'data-figure="skipped" data-value="2" data-share="0.3333333333333333"',
    );
    expect(defaultRow).toContain('data-figure="hedgesWon" data-value="1"');
    const plainRow = routeRow("plain")!.find((row) => row.includes('data-figure="skipped"'))!;
    expect(plainRow).toContain('data-figure="skipped" data-value="null">—');
    expect(plainRow).toContain('data-figure="hedgeExtraCost" data-value="null">—');
    expect(html).toContain('id="steered-steps"');
    expect(html).toContain("skipped: rpm_cap 2");
  });
});

describe("a call that lists a step for two reasons", () => {
  it("counts once for the step and once under each reason", async () => {
    // Call 2's event as a client writes it when its first attempt found a Retry-After and its
    // next one the rpm cap; read through the event schema, so it cannot drift from it.
    const second = recorded[1]!;
    const twice: CallEvent = {
      ...second,
      skippedSteps: [
        { ...second.skippedSteps![0]!, reason: "retry_after" },
        ...second.skippedSteps!,
      ],
    };
    expect(parseEventLine(JSON.stringify(twice))).toEqual({ ok: true, event: twice });
    const file = path.join(directory, "two-reasons.jsonl");
    const lines = recorded.map((event, index) => JSON.stringify(index === 1 ? twice : event));
    await writeFile(file, `${lines.join("\n")}\n`);
    const json = JSON.parse(await report([file, "--json"])) as Report;
    const [route] = json.steering.routes;
    expect(route!.skipped).toEqual({ calls: 2, outOf: 6, share: 2 / 6 });
    expect(route!.steps[0]!.skipped).toEqual({
      calls: 2,
      outOf: 6,
      share: 2 / 6,
      reasons: { rpm_cap: 2, retry_after: 1 },
    });
  });
});

describe("docs/analytics.md", () => {
  it("shows the steering tables exactly as the report prints them for these events", async () => {
    const docs = await readFile(new URL("../../docs/analytics.md", import.meta.url), "utf8");
    const example = docs.slice(docs.indexOf("```text\n$ stepwise report events.jsonl"));
    const shown = example
      .slice(example.indexOf("Client steering ("), example.indexOf("```", 8))
      .trimEnd();
    const printed = plain(await report([eventsFile]));
    const from = printed.indexOf("Client steering (");
    const tables = printed.slice(from, printed.indexOf("\n\nBy ", from));
    expect(shown).toBe(tables);
  });
});

describe("events without steering fields", () => {
  it("show every steering figure as not recorded, never as 0", async () => {
    // The same calls as an older client (or another source) records them: no steering fields.
    const older = path.join(directory, "older.jsonl");
    const stripped = recorded.map(({ skippedSteps, demotedSteps, hedges, ...rest }) => rest);
    await writeFile(older, `${stripped.map((event) => JSON.stringify(event)).join("\n")}\n`);
    const json = JSON.parse(await report([older, "--json"])) as Report;
    expect(json.steering.recorded).toBe(false);
    for (const route of [...json.steering.routes, json.steering.totals]) {
      expect([route.skipped, route.demoted, route.hedging]).toEqual([null, null, null]);
    }
    const text = plain(await report([older]));
    expect(text).toContain("Client steering: not recorded");
    expect(text).not.toContain("skipped a step");
    const csv = (await report([older, "--csv"])).trim().split("\n");
    const header = csv[0]!.split(",");
    const total = csv[1]!.split(",");
    expect(total[header.indexOf("skipped_calls")]).toBe("");
    expect(total[header.indexOf("hedge_extra_cost")]).toBe("");
  });
});
