/**
 * Every figure in BENCHMARKS.md reproduces (issue 29, item 4; issue 26, item 4): each summary row
 * names the command that produced it, each generated section names its command and the run it
 * came from (date and machine), and every hand-written table has a command in the text above it
 * within its section. A row or table without one fails here, so a figure cannot be added without
 * saying how to measure it again.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "./documented.ts";

/** A command in an inline code span: what a reader can paste. */
const command = /`(npm run [^`]+|npx [^`]+|node [^`]+|tsx [^`]+|\/usr\/bin\/time [^`]+)`/;
const benchCommand = /^`npm run bench(?::quick)? -- --only ([a-z0-9-]+)`$/;

interface Block {
  readonly id: string;
  readonly lines: readonly string[];
}

/** The generated blocks, `<!-- bench:id -->` … `<!-- /bench:id -->`. */
function blocks(lines: readonly string[]): Block[] {
  const found: Block[] = [];
  lines.forEach((line, index) => {
    const open = /^<!-- bench:([a-z0-9-]+) -->$/.exec(line.trim());
    if (open === null) return;
    const end = lines.indexOf(`<!-- /bench:${open[1]} -->`, index);
    found.push({ id: open[1]!, lines: lines.slice(index + 1, end === -1 ? undefined : end) });
  });
  return found;
}

function cells(row: string): string[] {
  return row
    .trim()
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

const isRule = (line: string) => /^\|[\s:|-]+\|$/.test(line.trim());

/** Problems with the summary block: rows that name no benchmark command, or an unknown one. */
function summaryProblems(document: string): string[] {
  const lines = document.replaceAll("\r\n", "\n").split("\n");
  const all = blocks(lines);
  const summary = all.find((block) => block.id === "summary");
  if (summary === undefined) return ["no <!-- bench:summary --> block"];
  const ids = new Set(all.map((block) => block.id));
  const rows = summary.lines.filter((line) => line.trim().startsWith("|"));
  if (rows.length < 3) return ["the summary has no table rows"];
  const problems: string[] = [];
  for (const row of rows.slice(2)) {
    if (isRule(row)) continue;
    const name = cells(row)[0];
    const named = cells(row)
      .map((cell) => benchCommand.exec(cell))
      .find((match) => match !== null);
    if (named === undefined) problems.push(`summary row "${name}" names no command`);
    else if (!ids.has(named[1]!)) {
      problems.push(`summary row "${name}" names ${named[1]}, which has no section`);
    }
  }
  return problems;
}

/** Problems with the generated sections: no command, or no date of the run they came from. */
function sectionProblems(document: string): string[] {
  const lines = document.replaceAll("\r\n", "\n").split("\n");
  const problems: string[] = [];
  for (const block of blocks(lines)) {
    if (block.id === "summary") continue;
    const text = block.lines.join("\n");
    if (!text.includes(`Reproduce: \`npm run bench -- --only ${block.id}\``)) {
      problems.push(`section ${block.id} names no command that reproduces it`);
    }
    if (!/^_Measured \d{4}-\d\d-\d\d \d\d:\d\d UTC/m.test(text)) {
      problems.push(`section ${block.id} does not say which run it came from`);
    }
    if (!/^Noise: /m.test(text)) problems.push(`section ${block.id} states no noise`);
  }
  return problems;
}

/**
 * Problems with hand-written tables (outside the generated blocks): a table whose section, from
 * its heading down to the table, names no command in a code span or code block.
 */
function handWrittenTableProblems(document: string): string[] {
  const lines = document.replaceAll("\r\n", "\n").split("\n");
  const problems: string[] = [];
  let inBlock = false;
  let inFence = false;
  let since: string[] = [];
  let inTable = false;
  for (const line of lines) {
    const trimmed = line.trim();
    if (/^<!-- bench:[a-z0-9-]+ -->$/.test(trimmed)) inBlock = true;
    if (/^<!-- \/bench:[a-z0-9-]+ -->$/.test(trimmed)) inBlock = false;
    if (trimmed.startsWith("```")) inFence = !inFence;
    if (/^#{1,3} /.test(trimmed) && !inFence) since = [];
    const row = !inFence && trimmed.startsWith("|");
    if (row && !inTable && !inBlock) {
      const above = since.join("\n");
      const fenced = /```(?:sh|bash)?\n[\s\S]*?(npm run |npx |node |tsx )/.test(above);
      if (!command.test(above) && !fenced) problems.push(`table "${trimmed}" names no command`);
    }
    inTable = row;
    since.push(line);
  }
  return problems;
}

const benchmarksFile = readFileSync(path.join(projectRoot, "BENCHMARKS.md"), "utf8");

describe("BENCHMARKS.md", () => {
  it("names the command of every summary row", () => {
    expect(summaryProblems(benchmarksFile)).toStrictEqual([]);
  });

  it("names the command, the run and the noise of every generated section", () => {
    expect(sectionProblems(benchmarksFile)).toStrictEqual([]);
  });

  it("names a command above every hand-written table", () => {
    expect(handWrittenTableProblems(benchmarksFile)).toStrictEqual([]);
  });
});

describe("the checks themselves", () => {
  const section = (id: string, extra = "") =>
    [
      `<!-- bench:${id} -->`,
      "_Measured 2026-12-01 10:00 UTC on a machine._  ",
      `Reproduce: \`npm run bench -- --only ${id}\``,
      "Noise: ±3 % between blocks.",
      extra,
      "| a | b |",
      "| - | - |",
      "| 1 | 2 |",
      `<!-- /bench:${id} -->`,
    ].join("\n");
  const summary = (rows: string[]) =>
    [
      "<!-- bench:summary -->",
      "| benchmark | headline | reproduce |",
      "| --- | --- | --- |",
      ...rows,
      "<!-- /bench:summary -->",
    ].join("\n");

  it("fails a summary row without a command, or naming a section that is not there", () => {
    const document = [
      summary([
        "| Sizes | 6 kB | `npm run bench -- --only sizes` |",
        "| Client overhead | 1.10× | — |",
        "| Old | 1× | `npm run bench -- --only gone` |",
      ]),
      section("sizes"),
    ].join("\n\n");
    expect(summaryProblems(document)).toStrictEqual([
      'summary row "Client overhead" names no command',
      'summary row "Old" names gone, which has no section',
    ]);
  });

  it("fails a section without its command, its run or its noise", () => {
    const bare = ["<!-- bench:sizes -->", "| a |", "| - |", "<!-- /bench:sizes -->"].join("\n");
    expect(sectionProblems(bare)).toStrictEqual([
      "section sizes names no command that reproduces it",
      "section sizes does not say which run it came from",
      "section sizes states no noise",
    ]);
    expect(sectionProblems(section("sizes"))).toStrictEqual([]);
  });

  it("fails a hand-written table with no command above it in its section", () => {
    const document = [
      "## Profile",
      "",
      "What moved (`node --cpu-prof bin/stepwise.js report events.jsonl`):",
      "",
      "| where | before |",
      "| - | - |",
      "",
      "## Guesses",
      "",
      "| where | before |",
      "| - | - |",
    ].join("\n");
    expect(handWrittenTableProblems(document)).toStrictEqual([
      'table "| where | before |" names no command',
    ]);
  });
});
