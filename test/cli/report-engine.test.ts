/**
 * `stepwise report --engine`: documented in `--help`; `duckdb` refuses stdin and
 * `--reasons-from-logs` (usage errors, exit 2) and, on a file with malformed lines, says on stderr
 * that the JS engine read it, whose report (malformed lines counted) it prints; `auto` and `js`
 * print the same figures.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { reportCommand } from "../../src/cli/commands/report.ts";
import { exitCodeOf } from "../../src/cli/exit-codes.ts";

const root = path.resolve(import.meta.dirname, "../..");
const events = path.join(root, "test/__fixtures__/analytics/duckdb-engine.jsonl");

async function run(args: string[]) {
  let output = "";
  const notes: string[] = [];
  const command = reportCommand({
    now: () => Date.parse("2026-05-02T00:00:00Z"),
    env: {},
    write: (text) => {
      output += text;
    },
    note: (line) => notes.push(line),
  }).exitOverride();
  const error = await command.parseAsync(args, { from: "user" }).then(
    () => null,
    (thrown: unknown) => thrown as Error,
  );
  return { output, notes, error };
}

describe("stepwise report --engine", () => {
  it("is documented in --help with its choices and default", () => {
    const help = reportCommand().helpInformation();
    expect(help).toContain("--engine <engine>");
    expect(help.replace(/\s+/g, " ")).toMatch(/choices: "auto", "duckdb", "js", default: "auto"/);
  });

  it("gives the same figures with every engine", async () => {
    const [duckdb, js, auto] = await Promise.all(
      ["duckdb", "js", "auto"].map((engine) => run([events, "--json", "--engine", engine])),
    );
    const figures = (output: string) => {
      const report = JSON.parse(output);
      return { counted: report.counted, cost: report.totals.cost, steps: report.totals.steps };
    };
    expect(duckdb?.notes).toEqual([]);
    expect(figures(duckdb?.output ?? "")).toEqual(figures(js?.output ?? ""));
    expect(figures(auto?.output ?? "")).toEqual(figures(js?.output ?? ""));
    expect(figures(js?.output ?? "").counted).toBe(3);
  });

  it("refuses stdin and --reasons-from-logs with --engine duckdb", async () => {
    const stdin = await run(["-", "--engine", "duckdb"]);
    expect(stdin.error?.message).toMatch(/^--engine duckdb reads a file, not stdin/);
    expect(exitCodeOf(stdin.error as never)).toBe(2);
    const logs = await run([events, "--engine", "duckdb", "--reasons-from-logs"]);
    expect(logs.error?.message).toMatch(/^--reasons-from-logs reads every event/);
  });

  it("says when DuckDB hands a file with malformed lines to the JS engine", async () => {
    const malformed = path.join(root, "test/__fixtures__/analytics/duckdb-engine-malformed.jsonl");
    const { output, notes, error } = await run([malformed, "--json", "--engine", "duckdb"]);
    expect(error).toBeNull();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^stepwise report: .*duckdb-engine-malformed\.jsonl read by the JS engine: /,
    );
    expect(JSON.parse(output).source).toMatchObject({ records: 4, malformed: 1 });
  });
});
