/**
 * What a run writes into BENCHMARKS.md besides the tables: the command that reproduces each
 * table, the machine line, the summary with targets met or missed, and the figures read out of
 * wrangler's and jq's output.
 */
import { describe, expect, it } from "vitest";
import type { MachineInfo } from "../../../tools/bench/machine.ts";
import {
  commandFor,
  machineLine,
  sectionFor,
  summarySection,
} from "../../../tools/bench/report.ts";
import { jqCalls, parseWranglerUpload } from "../../../tools/bench/tool-output.ts";
import type { Benchmark, BenchResult } from "../../../tools/bench/types.ts";

const machine: MachineInfo = {
  cpuModel: "AMD EPYC 7B13",
  cores: 2,
  memoryBytes: 24 * 1024 ** 3,
  node: "v20.20.2",
  os: "Linux 6.1 x64",
  loadAverage: 1.25,
  date: "2026-05-01T12:34:56.000Z",
};

const benchmark: Benchmark = {
  id: "client-overhead",
  heading: "Client overhead",
  run: async () => {
    throw new Error("not run in this test");
  },
};

const result: BenchResult = {
  body: "| call | median |",
  headline: "client.chat 1.14× of raw fetch",
  targets: [{ name: "Client overhead", goal: "≤ 1.10× raw fetch", measured: "1.14×", met: false }],
  noise: "±3.0 % over the run's parts.",
};

describe("report text", () => {
  it("names the command that reproduces one table, full or quick", () => {
    expect(commandFor("sizes")).toBe("npm run bench -- --only sizes");
    expect(commandFor("sizes", true)).toBe("npm run bench:quick -- --only sizes");
  });

  it("describes the machine with its load at the start", () => {
    expect(machineLine(machine)).toBe(
      "AMD EPYC 7B13, 2 cores, 24 GiB RAM, Node v20.20.2, Linux 6.1 x64; 1-minute load average 1.3 at the start",
    );
  });

  it("heads each section with its date, machine, command and noise, then the benchmark's body", () => {
    const section = sectionFor(benchmark, result, machine, false);
    expect(section.id).toBe("client-overhead");
    expect(section.heading).toBe("Client overhead");
    expect(section.body.split("\n")).toStrictEqual([
      `_Measured 2026-05-01 12:34 UTC on ${machineLine(machine)}._  `,
      "Reproduce: `npm run bench -- --only client-overhead`  ",
      "Noise: ±3.0 % over the run's parts.",
      "",
      "| call | median |",
    ]);
  });

  it("marks a missed target in the summary", () => {
    const summary = summarySection([{ benchmark, result }], machine, false);
    expect(summary.heading).toBe("");
    expect(summary.body).toContain(
      "| Client overhead | client.chat 1.14× of raw fetch | ≤ 1.10× raw fetch | **missed** (1.14×) | `npm run bench -- --only client-overhead` |",
    );
  });

  it("names each target when a benchmark has several, and states a shared goal once", () => {
    const twoTargets: BenchResult = {
      body: "",
      headline: "circuit open",
      targets: [
        { name: "primary hangs", goal: "≤ 1.10× direct", measured: "1.01×", met: true },
        { name: "primary answers 503", goal: "≤ 1.10× direct", measured: "1.12×", met: false },
      ],
      noise: "",
    };
    const summary = summarySection([{ benchmark, result: twoTargets }], machine, false);
    expect(summary.body).toContain(
      "| ≤ 1.10× direct | primary hangs: met (1.01×); primary answers 503: **missed** (1.12×) | `npm run bench -- --only client-overhead` |",
    );
  });
});

describe("tool output", () => {
  it("reads wrangler's upload line in bytes", () => {
    const output = "Total Upload: 944.01 KiB / gzip: 163.23 KiB\nYour Worker has access to…";
    expect(parseWranglerUpload(output)).toStrictEqual({ raw: 966_666, gzip: 167_148 });
    expect(parseWranglerUpload("no size here")).toBeUndefined();
  });

  it("sums calls over jq's groups, as an array or an object", () => {
    expect(jqCalls('[{"calls":3},{"calls":4}]')).toBe(7);
    expect(jqCalls('{"a|b":{"calls":5},"c|d":{"calls":1}}')).toBe(6);
    expect(() => jqCalls('[{"count":3}]')).toThrow(/no numeric calls/);
    expect(() => jqCalls("null")).toThrow(/neither an array nor an object/);
  });
});
