/**
 * @module
 * `npm run bench`: runs every benchmark in one process, one progress line each, and writes
 * BENCHMARKS.md (only the blocks it measured; hand-written text stays). Everything a benchmark
 * starts is stopped when it ends, passed or failed, and on Ctrl-C.
 *
 * Usage: `tsx tools/bench/run.ts [--quick] [--only id,id] [--out BENCHMARKS.md]`
 * A full run writes BENCHMARKS.md; `--quick` prints its blocks and writes only with `--out`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Cleanup, createCleanup } from "./cleanup.ts";
import { clientOverhead } from "./client-overhead.ts";
import { emulatorHttpLayer } from "./emulator-http-layer.ts";
import { failoverCost } from "./failover-cost.ts";
import { faultMatrix } from "./fault-matrix.ts";
import { firstToken } from "./first-token.ts";
import { gatewayThroughput } from "./gateway-throughput.ts";
import { describeMachine } from "./machine.ts";
import { type GeneratedSection, updateBenchmarksDocument } from "./markdown.ts";
import { outageFirstToken } from "./outage-first-token.ts";
import { commandFor, sectionFor, summarySection } from "./report.ts";
import { reportThroughput } from "./report-throughput.ts";
import { sizes } from "./sizes.ts";
import type { Benchmark, BenchResult } from "./types.ts";
import { workerOverhead } from "./worker-overhead.ts";

/** Every benchmark, in document order. */
export const benchmarks: readonly Benchmark[] = [
  clientOverhead,
  gatewayThroughput,
  emulatorHttpLayer,
  failoverCost,
  faultMatrix,
  workerOverhead,
  firstToken,
  outageFirstToken,
  reportThroughput,
  sizes,
];

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

function progressLine(interactive: boolean) {
  let last = "";
  return {
    update(text: string) {
      if (!interactive) return;
      const line = text.length > 118 ? `${text.slice(0, 117)}…` : text;
      process.stdout.write(`\r\x1b[2K${line}`);
      last = line;
    },
    done(text: string) {
      process.stdout.write(`${interactive && last !== "" ? "\r\x1b[2K" : ""}${text}\n`);
      last = "";
    },
  };
}

function parseOptions(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  }).values;
}

async function main(argv: string[]): Promise<number> {
  let values: ReturnType<typeof parseOptions>;
  try {
    values = parseOptions(argv);
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}; see --help.`);
    return 2;
  }
  if (values.help) {
    console.log(
      [
        "Usage: npm run bench [-- --only <id,id>] [-- --out <file>]",
        "       npm run bench:quick [-- --only <id,id>] [-- --out <file>]",
        "",
        "A full run writes BENCHMARKS.md; --quick prints its tables and writes only with --out.",
        `Benchmarks: ${benchmarks.map((benchmark) => benchmark.id).join(", ")}`,
      ].join("\n"),
    );
    return 0;
  }
  const quick = values.quick ?? false;
  const only = values.only?.split(",").map((id) => id.trim());
  const unknown = only?.filter((id) => !benchmarks.some((benchmark) => benchmark.id === id));
  if (unknown !== undefined && unknown.length > 0) {
    console.error(
      `Unknown benchmark ${unknown.join(", ")}; choose from ${benchmarks.map((benchmark) => benchmark.id).join(", ")}.`,
    );
    return 2;
  }
  const selected = benchmarks.filter((benchmark) => only?.includes(benchmark.id) ?? true);
  const out = values.out ?? (quick ? undefined : `${repositoryRoot}BENCHMARKS.md`);
  const machine = describeMachine();
  const line = progressLine(process.stdout.isTTY === true);
  let current: Cleanup | undefined;
  const interrupt = () => {
    line.done("Interrupted; stopping servers…");
    void (current?.run() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);

  console.log(
    `stepwise benchmarks${quick ? " (quick)" : ""}: ${selected.length} on ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}`,
  );
  const started = performance.now();
  const results: { benchmark: Benchmark; result: BenchResult }[] = [];
  let failed = 0;
  for (const [index, benchmark] of selected.entries()) {
    const label = `[${index + 1}/${selected.length}] ${benchmark.heading}`;
    const benchStarted = performance.now();
    const cleanup = createCleanup();
    current = cleanup;
    line.update(`${label}…`);
    try {
      const result = await benchmark.run({
        quick,
        cleanup,
        machine,
        command: commandFor(benchmark.id, quick),
        progress: (text) => line.update(`${label}: ${text}`),
      });
      results.push({ benchmark, result });
      const seconds = ((performance.now() - benchStarted) / 1000).toFixed(1);
      const missed = result.targets.filter((target) => !target.met);
      line.done(
        `${label}: ${result.headline} (${seconds} s)${missed.length > 0 ? ` — target missed: ${missed.map((target) => target.name).join(", ")}` : ""}`,
      );
    } catch (error) {
      failed++;
      line.done(`${label}: FAILED — ${error instanceof Error ? error.message : String(error)}`);
      if (error instanceof Error && error.stack) console.error(error.stack);
    } finally {
      try {
        await cleanup.run();
      } catch (error) {
        console.error(`Stopping ${benchmark.id}'s servers failed: ${String(error)}`);
      }
      current = undefined;
    }
  }
  const sections: GeneratedSection[] = results.map(({ benchmark, result }) =>
    sectionFor(benchmark, result, machine, quick),
  );
  if (results.length === benchmarks.length) {
    sections.unshift(summarySection(results, machine, quick));
  }
  console.log(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  if (out === undefined) {
    for (const section of sections) {
      console.log(`\n## ${section.heading || "Summary"}\n\n${section.body}`);
    }
  } else if (sections.length > 0) {
    const existing = await readFile(out, "utf8").catch(() => "");
    const order = [{ id: "summary", heading: "", body: "" }, ...benchmarks];
    await writeFile(out, updateBenchmarksDocument(existing, sections, order));
    console.log(`Wrote ${out}.`);
  }
  return failed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
