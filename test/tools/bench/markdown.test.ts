/**
 * The BENCHMARKS.md writer: a run replaces only the blocks it measured, keeps hand-written text
 * (such as the analytics notes under "Report throughput"), places new sections in benchmark
 * order, and refuses a file whose markers are broken rather than overwrite it.
 */
import { describe, expect, it } from "vitest";
import {
  beginMarker,
  endMarker,
  markdownTable,
  updateBenchmarksDocument,
} from "../../../tools/bench/markdown.ts";

const order = [
  { id: "summary", heading: "" },
  { id: "client-overhead", heading: "Client overhead" },
  { id: "report-throughput", heading: "Report throughput" },
  { id: "sizes", heading: "Sizes" },
];

const handWritten = [
  "## Report throughput",
  "",
  "`stepwise report` reads an events file in one streaming pass.",
  "",
  "| run      | events |",
  "| -------- | -----: |",
  "| `report` | 100000 |",
  "",
].join("\n");

describe("markdownTable", () => {
  it("pads columns, right-aligns numbers and escapes pipes", () => {
    const table = markdownTable(
      ["call", "median"],
      [
        ["raw", "0.41 ms"],
        ["a | b", "12.3 ms"],
      ],
      ["left", "right"],
    );
    expect(table.split("\n")).toStrictEqual([
      "| call   |  median |",
      "| ------ | ------: |",
      "| raw    | 0.41 ms |",
      "| a \\| b | 12.3 ms |",
    ]);
  });
});

describe("updateBenchmarksDocument", () => {
  it("adds a title, the summary under it, and a block under an existing heading, keeping its text", () => {
    const document = updateBenchmarksDocument(
      handWritten,
      [
        { id: "summary", heading: "", body: "Machine: test." },
        { id: "report-throughput", heading: "Report throughput", body: "| tool | events/s |" },
      ],
      order,
    );
    expect(document).toBe(
      [
        "# Benchmarks",
        "",
        beginMarker("summary"),
        "Machine: test.",
        endMarker("summary"),
        "",
        "## Report throughput",
        "",
        beginMarker("report-throughput"),
        "| tool | events/s |",
        endMarker("report-throughput"),
        "",
        "`stepwise report` reads an events file in one streaming pass.",
        "",
        "| run      | events |",
        "| -------- | -----: |",
        "| `report` | 100000 |",
        "",
      ].join("\n"),
    );
  });

  it("replaces only the measured block on the next run", () => {
    const first = updateBenchmarksDocument(
      handWritten,
      [
        { id: "client-overhead", heading: "Client overhead", body: "old client figures" },
        { id: "report-throughput", heading: "Report throughput", body: "old report figures" },
      ],
      order,
    );
    const second = updateBenchmarksDocument(
      first,
      [{ id: "client-overhead", heading: "Client overhead", body: "new client figures" }],
      order,
    );
    expect(second).toBe(first.replace("old client figures", "new client figures"));
    expect(second).toContain("old report figures");
    expect(second).toContain("`stepwise report` reads an events file in one streaming pass.");
  });

  it("places a new section before the next benchmark's heading, in benchmark order", () => {
    const document = updateBenchmarksDocument(
      handWritten,
      [{ id: "client-overhead", heading: "Client overhead", body: "client figures" }],
      order,
    );
    const headings = document.split("\n").filter((line) => line.startsWith("#"));
    expect(headings).toStrictEqual(["# Benchmarks", "## Client overhead", "## Report throughput"]);
    expect(document.indexOf("client figures")).toBeLessThan(
      document.indexOf("## Report throughput"),
    );
  });

  it("appends a section with no later heading at the end, and starts an empty file", () => {
    const document = updateBenchmarksDocument(
      "",
      [
        { id: "sizes", heading: "Sizes", body: "sizes table" },
        { id: "client-overhead", heading: "Client overhead", body: "client table" },
      ],
      order,
    );
    expect(document.split("\n").filter((line) => line.startsWith("#"))).toStrictEqual([
      "# Benchmarks",
      "## Client overhead",
      "## Sizes",
    ]);
    expect(document.endsWith(`${endMarker("sizes")}\n`)).toBe(true);
  });

  it("refuses a block whose closing marker was deleted", () => {
    const broken = `# Benchmarks\n\n## Sizes\n\n${beginMarker("sizes")}\nold\n`;
    expect(() =>
      updateBenchmarksDocument(broken, [{ id: "sizes", heading: "Sizes", body: "new" }], order),
    ).toThrow(/unbalanced block "sizes"/);
  });
});
