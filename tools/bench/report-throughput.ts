/**
 * @module
 * Benchmark 5: `stepwise report` (the built CLI) aggregating generated events files of 1 M and
 * (full mode) 10 M events, against `jq` grouping the same 1 M file in the same run: wall time,
 * events per second and peak memory of each, as separate processes; the CLI's start-up; and the
 * bytes a 30-day live Analytics Engine report fetches (`report-sql-volume.ts`). Targets: ≥ 5× jq
 * `group_by`, start-up ≤ 0.3 s, and flat memory (10 M events within 1.25× the peak of 1 M).
 */
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateEventLines, writeEventLines } from "../scripts/generate-events.ts";
import { markdownTable } from "./markdown.ts";
import { noiseStatement } from "./noise.ts";
import { measureSqlVolume } from "./report-sql-volume.ts";
import { measureStartup } from "./startup-time.ts";
import { formatBytes, formatCount, formatRatio, quantile, ratio } from "./stats.ts";
import { type CommandCost, isInstalled, timedCommand } from "./timed-command.ts";
import { jqCalls } from "./tool-output.ts";
import type { BenchContext, Benchmark, BenchResult, TargetCheck } from "./types.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

interface Row {
  readonly tool: string;
  readonly command: string;
  readonly events: number;
  readonly cost: CommandCost | string;
}

async function run(context: BenchContext): Promise<BenchResult> {
  const count = context.quick ? 100_000 : 1_000_000;
  const bigCount = context.quick ? 0 : 10_000_000;
  const directory = context.cleanup.add(
    await mkdtemp(path.join(tmpdir(), "stepwise-bench-events-")),
    (created) => rm(created, { recursive: true, force: true }),
  );
  context.progress("building the CLI");
  await timedCommand("npm", ["run", "build:js", "--silent"], { cwd: root });
  const file = path.join(directory, "events.jsonl");
  const one = path.join(directory, "one.jsonl");
  context.progress(`generating ${formatCount(count)} events`);
  await writeEventLines(file, generateEventLines({ count, seed: 1 }));
  await writeFile(one, `${[...generateEventLines({ count: 1, seed: 1 })][0]}\n`);
  const size = (await stat(file)).size;
  const rows: Row[] = [];
  const measure = async (tool: string, command: string, args: string[], events: number) => {
    context.progress(`running ${tool}`);
    const cost = await timedCommand(command, args, { cwd: root, captureStdout: command === "jq" });
    if (command === "jq" && jqCalls(cost.stdout) !== events) {
      throw new Error(`${tool} counted ${jqCalls(cost.stdout)} calls, not ${events}`);
    }
    const shown = args.join(" ").replace(file, "events.jsonl").replace(one, "one-event.jsonl");
    rows.push({ tool, command: `${command} ${shown}`, events, cost });
    return cost;
  };
  await measure("`stepwise report --help`", "node", ["bin/stepwise.js", "report", "--help"], 0);
  // Start-up: seven reports of a one-event file, each followed by a bare `node -e 0`.
  context.progress("measuring start-up");
  const startups = await measureStartup(["bin/stepwise.js", "report", one], root, 7);
  const startup = Math.min(...startups.wallMs);
  rows.push({
    tool: "`stepwise report` of a one-event file (start-up, best of 7)",
    command: "node bin/stepwise.js report one-event.jsonl",
    events: 1,
    cost: { wallMs: startup, peakRssBytes: undefined, stdout: "" },
  });
  const report = await measure(
    "`stepwise report`",
    "node",
    ["bin/stepwise.js", "report", file],
    count,
  );
  let jq: CommandCost | undefined;
  const jqInstalled = await isInstalled("jq");
  const version = jqInstalled
    ? (await timedCommand("jq", ["--version"], { cwd: root, captureStdout: true })).stdout.trim()
    : "jq";
  for (const [tool, args] of [
    [`${version} group_by (slurp)`, ["-s", "-c", "-f", "tools/bench/jq/group-by.jq", file]],
    [`${version} streaming reduce`, ["-n", "-c", "-f", "tools/bench/jq/stream-reduce.jq", file]],
  ] as const) {
    const shown = `jq ${args.join(" ").replace(file, "events.jsonl")}`;
    if (context.quick && args[0] === "-n") {
      rows.push({ tool, command: shown, events: count, cost: "full mode only" });
      continue;
    }
    if (!jqInstalled) {
      const cost = "jq is not installed (`apt-get install -y jq`)";
      rows.push({ tool, command: shown, events: count, cost });
      continue;
    }
    const cost = await measure(tool, "jq", [...args], count);
    jq ??= cost;
  }
  let big: CommandCost | undefined;
  if (bigCount > 0) {
    await rm(file, { force: true });
    const bigFile = path.join(directory, "events-10m.jsonl");
    context.progress(`generating ${formatCount(bigCount)} events`);
    await writeEventLines(bigFile, generateEventLines({ count: bigCount, seed: 2 }));
    big = await measure(
      "`stepwise report`",
      "node",
      ["bin/stepwise.js", "report", bigFile],
      bigCount,
    );
    rows[rows.length - 1] = {
      ...(rows.at(-1) as Row),
      command: "node bin/stepwise.js report events-10m.jsonl",
    };
    await rm(bigFile, { force: true });
  }
  context.progress("a 30-day report through the SQL API fake");
  const volume = await measureSqlVolume(context.quick ? 20_000 : 200_000);

  // The start-up rows were measured three times; the table shows the last of each.
  const shownRows = rows.filter((_, index) => isLastOfKind(rows, index));
  const table = markdownTable(
    ["tool", "events", "wall time", "events/s", "peak RSS"],
    shownRows.map((row) => {
      if (typeof row.cost === "string")
        return [row.tool, formatCount(row.events), row.cost, "—", "—"];
      return [
        row.tool,
        formatCount(row.events),
        `${(row.cost.wallMs / 1000).toFixed(2)} s`,
        row.events <= 1 ? "—" : formatCount((row.events * 1000) / row.cost.wallMs),
        row.cost.peakRssBytes === undefined ? "—" : formatBytes(row.cost.peakRssBytes),
      ];
    }),
    ["left", "right", "right", "right", "right"],
  );
  const speedup = jq === undefined ? Number.NaN : ratio(jq.wallMs, report.wallMs);
  const memoryGrowth =
    big?.peakRssBytes !== undefined && report.peakRssBytes !== undefined
      ? ratio(big.peakRssBytes, report.peakRssBytes)
      : Number.NaN;
  const targets: TargetCheck[] = [
    {
      name: "vs jq",
      goal: "≥ 5× jq group_by",
      measured: jq === undefined ? "no jq" : `${speedup.toFixed(1)}×`,
      met: speedup >= 5,
    },
    {
      name: "start-up",
      goal: "start-up ≤ 0.3 s (best of 7)",
      measured: `${(startup / 1000).toFixed(2)} s`,
      met: startup <= 300,
    },
  ];
  if (big) {
    targets.push({
      name: "flat memory",
      goal: "10 M events ≤ 1.25× the peak RSS of 1 M",
      measured: `${memoryGrowth.toFixed(2)}×`,
      met: memoryGrowth <= 1.25,
    });
  }
  const body = [
    `${formatCount(count)} generated events (${formatBytes(size)}, \`tools/scripts/generate-events.ts\`, seed 1)${big ? ` and ${formatCount(bigCount)} (seed 2, about ${formatBytes((size * bigCount) / count)})` : ""}, each tool a separate process reading the same file; wall time and peak RSS from GNU time; the built CLI (\`bin/stepwise.js\` → \`dist/\`). Both jq programs group by gateway, route, step, provider and model and sum calls, successes, tokens, cost and cache hits; \`group_by\` also sorts each group's latencies for p50/p95/p99, as \`stepwise report\` does (with a bounded sketch), and must hold the whole file in memory to do so; the streaming \`reduce\` runs in constant memory but cannot give percentiles. Both are checked to count every event. \`stepwise report\` also validates each event and computes availability, fallback rate and step shares. Start-up is the best of seven runs of a report of a one-event file (the run least disturbed by other load), with the medians and bare \`node -e 0\` beside it.`,
    "",
    table,
    "",
    jq === undefined
      ? "jq was not installed, so there is no comparison in this run."
      : `\`stepwise report\` ran **${speedup.toFixed(1)}×** as fast as jq's \`group_by\` on the same ${formatCount(count)} events, at ${formatRatio(ratio(report.peakRssBytes ?? Number.NaN, jq.peakRssBytes ?? Number.NaN))} its peak memory. Start-up: **${(startup / 1000).toFixed(2)} s**, the best of seven reports of a one-event file (median ${seconds(quantile(startups.wallMs, 0.5))}, CPU ${seconds(quantile(startups.cpuMs, 0.5))} at the median); bare \`node -e 0\` took ${seconds(Math.min(...startups.bareWallMs))} at best and ${seconds(quantile(startups.bareWallMs, 0.5))} at the median between them, which is what the machine's other load adds.`,
    big
      ? `At ${formatCount(bigCount)} events the peak RSS is ${formatBytes(big.peakRssBytes ?? Number.NaN)}, **${memoryGrowth.toFixed(2)}×** that of ${formatCount(count)}: memory stays flat while the file grows tenfold.`
      : "The 10 M-event run is made in full mode only.",
    "",
    `**A 30-day live report** (\`--source analytics-engine\`, default grouping, automatic ${volume.bucket} buckets) over ${formatCount(volume.points)} points standing for ${formatCount(volume.calls)} calls (every fourth point sampled at 1 in 10), answered by the SQL API fake running the report's SQL in DuckDB: **${volume.requests} requests, ${formatCount(volume.rows)} aggregate rows, ${formatBytes(volume.bytes)} fetched**. Exporting the points instead (\`SELECT * … FORMAT JSONEachRow\`) would fetch ${formatBytes(volume.exportBytes)} (${formatRatio(ratio(volume.exportBytes, volume.bytes))} as much). The fetched rows grow with groups × buckets, not with calls, so a month of hundreds of millions of calls costs about the same.`,
    "",
    "Commands (from the repository root, after `npm run build:js`; `events.jsonl` made by `npx tsx tools/scripts/generate-events.ts --count " +
      String(count) +
      " --out events.jsonl`):",
    "",
    "```sh",
    ...[...new Set(rows.map((row) => `/usr/bin/time -v ${row.command} > /dev/null`))],
    "```",
  ].join("\n");
  return {
    body,
    headline: `stepwise report ${formatCount((count * 1000) / report.wallMs)} events/s (${jq === undefined ? "jq missing" : `${speedup.toFixed(1)}× jq group_by`}), start-up ${(startup / 1000).toFixed(2)} s, peak ${formatBytes(report.peakRssBytes ?? Number.NaN)}${big ? ` (10 M: ${formatBytes(big.peakRssBytes ?? Number.NaN)})` : ""}; 30-day SQL report ${formatBytes(volume.bytes)} fetched`,
    targets,
    noise: `each tool ran once, so its events/s has no spread of its own in this run. Start-up ${noiseStatement(
      "one report of a one-event file and one `node -e 0`",
      [
        {
          figure: "the report's start-up over `node -e 0`",
          values: startups.wallMs.map((wall, index) => wall / startups.bareWallMs[index]!),
          format: formatRatio,
        },
      ],
    )}`,
  };
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(2)} s`;
}

/** True for the last row of a tool measured several times (and for every other row). */
function isLastOfKind(rows: readonly Row[], index: number): boolean {
  const row = rows[index];
  return !rows.slice(index + 1).some((later) => later.command === row?.command);
}

export const reportThroughput: Benchmark = {
  id: "report-throughput",
  heading: "Report throughput",
  run,
};
