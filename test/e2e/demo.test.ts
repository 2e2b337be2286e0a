/**
 * `npm start` as the README shows it: the whole system on one machine (emulator, mock providers,
 * the companion Worker in workerd), run in a fresh project directory with the dev stack. Its
 * output is checked line by line against the README's console block, up to the figures and the
 * timing-dependent circuit transitions; then what it wrote is checked.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallEvent } from "../../src/client/index.ts";
import {
  consoleBlock,
  documented,
  linePattern,
  makeSandbox,
  runDocumented,
  type Sandbox,
} from "../docs/documented.ts";

let sandbox: Sandbox;
let run: Awaited<ReturnType<typeof runDocumented>>;

beforeAll(async () => {
  sandbox = await makeSandbox();
  run = await runDocumented(documented("npm start"), { sandbox });
}, 600_000);

afterAll(async () => {
  await sandbox?.remove();
});

async function readEvents(): Promise<CallEvent[]> {
  const text = await readFile(path.join(sandbox.directory, ".stepwise/demo/events.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as CallEvent);
}

/**
 * Lines of the README block whose presence depends on timing, not on the code; and the chain
 * shares, listed most used first (two rare chains may swap places from run to run).
 */
const timingDependent = /^(circuit |anthropic revoked|operator rotated|chains )|· chains /;

/**
 * The Routes table has one column per step that served a call, so a step that happened to serve
 * nothing in this run (step 2 needs both anthropic and openai to fail one call) has no column.
 * Its header and rows are matched up to the fallback column here, and their step columns are
 * checked against the events below.
 */
const routesHeader = /^gateway\s+route\s+calls\s+success\s+availability\s+fallback\b/;
const routesRow = /^chat-prod\s+\S+\s+\d/;

/** A README line as far as every run prints it. */
function runIndependentPart(line: string): string {
  const trimmed = line.trim();
  if (routesHeader.test(trimmed)) return trimmed.slice(0, trimmed.indexOf("step "));
  if (routesRow.test(trimmed)) return trimmed.split(/\s+/).slice(0, 6).join("  ");
  return trimmed;
}

/** Percent cells (`48.00%`) as numbers. */
function percentages(cells: readonly string[]): number[] {
  return cells.map((cell) => Number(cell.replace(/%$/, "")));
}

describe("npm start (stepwise demo), as the README shows it", () => {
  it("exits 0 and prints what the README shows, up to the figures", () => {
    expect(run.code, run.output).toBe(0);
    const block = consoleBlock("README.md", "npm start").filter(
      (line) => line.trim() !== "" && !line.trim().startsWith("…") && !line.startsWith("   "),
    );
    let from = 0;
    for (const line of block) {
      if (timingDependent.test(line.trim())) continue;
      const pattern = linePattern(runIndependentPart(line));
      const lines = run.output.split("\n");
      const found = lines.findIndex((candidate, index) => index >= from && pattern.test(candidate));
      expect(
        found,
        `README line not printed (in order): ${line}\n--- output:\n${run.output}`,
      ).not.toBe(-1);
      from = found + 1;
    }
    // The timing-dependent lines: some circuit transitions, the revocation and the rotation,
    // and the chain shares.
    expect(run.output).toMatch(/chains default \d+% · .* · over budget \d+/);
    expect(run.output).toMatch(/circuit anthropic: closed → open \(consecutive_failures\)/);
    expect(run.output).toContain("anthropic revoked the key the Worker injects");
    expect(run.output).toMatch(
      /operator rotated anthropic to version \d{13}-[0-9a-f]+ \(sha256:[0-9a-f]{12}\) through the Worker/,
    );
  });

  it("prints one Routes column per step that served, each route's shares summing to 100 %", async () => {
    const events = await readEvents();
    const lines = run.stdout.split("\n");
    const header = lines.findIndex((line) => routesHeader.test(line.trim()));
    expect(header, run.stdout).not.toBe(-1);
    const columns = [...lines[header]!.matchAll(/step (\d+)/g)].map((match) => Number(match[1]));
    // Every call succeeds (held below), so every event has a step and there is no "no step".
    const served = [...new Set(events.map((event) => event.step ?? -1))].sort((a, b) => a - b);
    expect(columns).toEqual(served);
    // The table's rows follow its header; later tables start their rows with the gateway too.
    const after = lines.slice(header + 1);
    const end = after.findIndex((line) => !routesRow.test(line.trim()));
    const rows = end === -1 ? after : after.slice(0, end);
    expect(rows.map((row) => row.trim().split(/\s+/)[1]).sort()).toEqual(["assistant", "default"]);
    for (const row of rows) {
      const cells = row.trim().split(/\s+/);
      const route = cells[1]!;
      const calls = events.filter((event) => event.route === route);
      expect(Number(cells[2]), route).toBe(calls.length);
      const shares = percentages(cells.slice(6));
      expect(shares, row).toHaveLength(columns.length);
      // Each share is shown to 0.01 %, so the sum may be off by half of that per column.
      const sum = shares.reduce((total, share) => total + share, 0);
      expect(Math.abs(sum - 100), row).toBeLessThanOrEqual(0.005 * shares.length + 1e-9);
      for (const [index, step] of columns.entries()) {
        const share = (100 * calls.filter((event) => event.step === step).length) / calls.length;
        expect(Math.abs(shares[index]! - share), `${route} step ${step}`).toBeLessThanOrEqual(0.01);
      }
    }
    expect(rows.reduce((total, row) => total + Number(row.trim().split(/\s+/)[2]), 0)).toBe(300);
  });

  it("ends the run with step shares that sum to 100 % and no failed call", () => {
    const done = run.output.split("\n").find((line) => line.includes("recovery done ·"));
    expect(done, run.output).toBeDefined();
    const shares = [...done!.matchAll(/step \d+\s+(\d+)%/g)].map((match) => Number(match[1]));
    expect(shares.length).toBeGreaterThanOrEqual(2);
    // Whole percents: each may be off by half a percent.
    const sum = shares.reduce((total, share) => total + share, 0);
    expect(Math.abs(sum - 100)).toBeLessThanOrEqual(0.5 * shares.length);
    expect(done).toMatch(/· 300\/300 calls · .*· failed 0 ·/);
  });

  it("records every call exactly once", async () => {
    const events = await readEvents();
    expect(events).toHaveLength(300);
    expect(new Set(events.map((event) => event.id)).size).toBe(300);
    expect(run.stdout).toContain("✔ nothing lost: 300 calls, 300 events recorded");
  });

  it("keeps every call answered through outages, a 429 storm and a revoked key, by falling back", async () => {
    const events = await readEvents();
    expect(events.every((event) => event.ok)).toBe(true);
    expect(run.stdout).toContain("availability 100.00%");
    expect(events.filter((event) => (event.step ?? 0) >= 1).length).toBeGreaterThan(30);
    expect(events.filter((event) => event.step === 0).length).toBeGreaterThan(30);
    expect(run.output).not.toContain("calls failed");
  });

  it("serves from the primary again after the key is rotated in through the Worker", async () => {
    const events = (await readEvents()).sort((a, b) => a.time.localeCompare(b.time));
    const recovery = events.slice(-30);
    expect(recovery.filter((event) => event.step === 0).length).toBeGreaterThan(0);
    expect(run.output).toMatch(/circuit anthropic: half-open → closed/);
  });

  it("writes the HTML report and prints the step-rate table", async () => {
    const html = await readFile(path.join(sandbox.directory, ".stepwise/demo/report.html"), "utf8");
    expect(html).toContain("<svg");
    expect(run.stdout).toMatch(/Routes \(step share of each route's calls\)/);
  });

  it("sends every other call to the assistant route, whose policy picks a chain by plan and tier", async () => {
    const events = (await readEvents()).filter((event) => event.route === "assistant");
    expect(events).toHaveLength(150);
    const chainsOf = (plan: string, tiers: string[]) =>
      new Set(
        events
          .filter(
            (event) =>
              event.metadata?.plan === plan && tiers.includes(String(event.metadata?.tier)),
          )
          .map((event) => event.policy?.chain),
      );
    // Both plans meet all three of the scorer's tiers, and each takes its rule's chains.
    for (const plan of ["free", "pro"]) {
      for (const tier of ["simple", "moderate", "complex"]) {
        expect(chainsOf(plan, [tier]).size, `${plan} × ${tier}`).toBeGreaterThan(0);
      }
    }
    expect(chainsOf("free", ["complex"])).toEqual(new Set(["default"]));
    expect(chainsOf("free", ["simple", "moderate"])).toEqual(new Set(["economy"]));
    expect(chainsOf("pro", ["complex"])).toEqual(new Set(["frontier", "default"]));
    expect([...chainsOf("pro", ["simple", "moderate"])]).toContain("default");
    expect(run.stdout).toContain("rule 2: plan=pro tier=complex → frontier");
  });

  it("spends the frontier chain's cost budget mid-run and sends later pro × complex calls to default", async () => {
    const budgeted = (await readEvents())
      .filter((event) => event.policy?.budget !== undefined)
      .sort((a, b) => a.time.localeCompare(b.time));
    const outcomes = budgeted.map((event) => event.policy?.budget);
    expect(outcomes[0]).toBe("within");
    expect(outcomes.at(-1)).toBe("over");
    const firstOver = outcomes.indexOf("over");
    expect(firstOver).toBeGreaterThan(0);
    expect(budgeted.slice(firstOver).every((event) => event.policy?.chain === "default")).toBe(
      true,
    );
    expect(run.output).toMatch(
      /budget of rule 2 spent \(\$0\.001 per 3600 s per plan\) after \d+ calls on assistant: its calls now take default/,
    );
  });

  it("prints the policy route's calls grouped by plan and tier, with the budget hits", () => {
    const text = run.stdout;
    expect(text).toContain("By metadata.plan · metadata.tier");
    const proComplex = text.split("\n").find((line) => /^pro\s+complex\s/.test(line));
    expect(proComplex).toBeDefined();
    // The last column is the calls a spent budget sent to its over chain.
    expect(Number(proComplex!.trim().split(/\s+/).at(-1))).toBeGreaterThan(0);
    expect(text).toMatch(/^free\s+simple\s/m);
  });

  it("never shows a provider key or the app token in events or output", async () => {
    const everything = [
      await readFile(path.join(sandbox.directory, ".stepwise/demo/events.jsonl"), "utf8"),
      run.output,
    ].join("\n");
    expect(everything).not.toMatch(/demo-[a-z-]+-\d+-[0-9a-f]{12}/);
    expect(everything).not.toMatch(/sw_[0-9a-f]{12}_/);
  });
});
