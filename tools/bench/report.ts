/**
 * @module
 * Turns benchmark results into BENCHMARKS.md blocks, pure: the summary under the title (machine,
 * date, one line per benchmark, targets, the command that reproduces it) and each section's header
 * line with that command.
 */
import type { MachineInfo } from "./machine.ts";
import { type GeneratedSection, markdownTable } from "./markdown.ts";
import type { Benchmark, BenchResult } from "./types.ts";

/** The command that reproduces one benchmark's table. */
export function commandFor(id: string, quick = false): string {
  return quick ? `npm run bench:quick -- --only ${id}` : `npm run bench -- --only ${id}`;
}

/** One line naming the machine. */
export function machineLine(machine: MachineInfo): string {
  const memory = `${(machine.memoryBytes / 1024 ** 3).toFixed(0)} GiB`;
  return `${machine.cpuModel}, ${machine.cores} cores, ${memory} RAM, Node ${machine.node}, ${machine.os}; 1-minute load average ${machine.loadAverage.toFixed(1)} at the start`;
}

/** A benchmark's block: where and when it ran, how to rerun it, then its own body. */
export function sectionFor(
  benchmark: Benchmark,
  result: BenchResult,
  machine: MachineInfo,
  quick: boolean,
): GeneratedSection {
  const header = [
    `_Measured ${machine.date.slice(0, 16).replace("T", " ")} UTC${quick ? " (quick mode)" : ""} on ${machineLine(machine)}._`,
    `Reproduce: \`${commandFor(benchmark.id, quick)}\``,
    `Noise: ${result.noise}`,
  ].join("  \n");
  return { id: benchmark.id, heading: benchmark.heading, body: `${header}\n\n${result.body}` };
}

/** The summary block under the title, written by full runs of every benchmark. */
export function summarySection(
  results: readonly { benchmark: Benchmark; result: BenchResult }[],
  machine: MachineInfo,
  quick: boolean,
): GeneratedSection {
  const rows = results.map(({ benchmark, result }) => [
    benchmark.heading,
    result.headline,
    [...new Set(result.targets.map((target) => target.goal))].join("; ") || "—",
    result.targets.length === 0
      ? "—"
      : result.targets
          .map(
            (target) =>
              `${result.targets.length > 1 ? `${target.name}: ` : ""}${target.met ? "met" : "**missed**"} (${target.measured})`,
          )
          .join("; "),
    `\`${commandFor(benchmark.id, quick)}\``,
  ]);
  const body = [
    `\`${quick ? "npm run bench:quick -- --out BENCHMARKS.md" : "npm run bench"}\` measured every table below in one run${quick ? " (quick mode: fewer calls, a smaller events file)" : ""} on ${machine.date.slice(0, 10)}: ${machineLine(machine)}. Everything listened on 127.0.0.1 at ports chosen at run time. Each row and section names the command that reproduces it (one benchmark alone); \`npm run bench:quick\` runs the same benchmarks smaller, in under a minute, and prints them without touching this file (add \`--out <file>\` to write).`,
    "",
    markdownTable(["benchmark", "headline", "target", "this run", "reproduce"], rows),
  ].join("\n");
  return { id: "summary", heading: "", body };
}
