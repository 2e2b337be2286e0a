/**
 * @module
 * Benchmark 5: `stepwise report` (the built CLI, with each engine: `--engine js` and
 * `--engine duckdb`) aggregating generated events files of 1 M and (full mode) 10 M events,
 * against DuckDB on one thread (the anchor: `servers/duckdb-report.mjs`,
 * the same GROUP BY with exact percentiles) over the same files and `jq` grouping the 1 M file,
 * in the same run: wall time, CPU time, events per second and peak memory of each, as separate
 * processes; at 1 M the reports and DuckDB run twice, interleaved, for the noise. Then the CLI's
 * start-up, and the bytes a 30-day live Analytics Engine report fetches (`report-sql-volume.ts`).
 * Targets: ≥ 1.0× DuckDB's events/s at 10 M (by the faster engine, which the headline names),
 * ≥ 5× jq `group_by`, start-up ≤ 0.3 s, and flat memory (10 M events within 1.25× the peak of
 * 1 M, for each engine).
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
import { duckdbCalls, jqCalls } from "./tool-output.ts";
import type { BenchContext, Benchmark, BenchResult, TargetCheck } from "./types.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** DuckDB's side, run by plain `node` from the repository root. */
const duckdbScript = "tools/bench/servers/duckdb-report.mjs";

type Engine = "duckdb" | "js";

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
  const bigFile = path.join(directory, "events-10m.jsonl");
  context.progress(`generating ${formatCount(count)} events`);
  await writeEventLines(file, generateEventLines({ count, seed: 1 }));
  await writeFile(one, `${[...generateEventLines({ count: 1, seed: 1 })][0]}\n`);
  const size = (await stat(file)).size;
  const rows: Row[] = [];
  const measure = async (tool: string, command: string, args: string[], events: number) => {
    context.progress(`running ${tool}`);
    const duckdb = args[0] === duckdbScript;
    const cost = await timedCommand(command, args, {
      cwd: root,
      captureStdout: command === "jq" || duckdb,
    });
    const counted =
      command === "jq" ? jqCalls(cost.stdout) : duckdb ? duckdbCalls(cost.stdout) : events;
    if (counted !== events) throw new Error(`${tool} counted ${counted} calls, not ${events}`);
    const shown = args
      .join(" ")
      .replace(bigFile, "events-10m.jsonl")
      .replace(file, "events.jsonl")
      .replace(one, "one-event.jsonl");
    rows.push({ tool, command: `${command} ${shown}`, events, cost });
    return cost;
  };
  const duckdbTool = "DuckDB 1 thread (`read_ndjson`, GROUP BY, `quantile_disc`)";
  const duckdbOn = (events: string, count: number) =>
    measure(duckdbTool, "node", [duckdbScript, events, "--threads", "1"], count);
  const reportOn = (events: string, count: number, engine: Engine) =>
    measure(
      `\`stepwise report --engine ${engine}\``,
      "node",
      ["bin/stepwise.js", "report", events, "--engine", engine],
      count,
    );
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
  // Two interleaved rounds of the report and DuckDB on the same file: the second pair is shown,
  // both give the noise.
  const rounds: { report: CommandCost; engine: CommandCost; duckdb: CommandCost }[] = [];
  for (let round = 0; round < 2; round += 1) {
    const reportCost = await reportOn(file, count, "js");
    const engineCost = await reportOn(file, count, "duckdb");
    rounds.push({ report: reportCost, engine: engineCost, duckdb: await duckdbOn(file, count) });
  }
  const { report, engine, duckdb: duckdbSmall } = rounds.at(-1)!;
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
  let engineBig: CommandCost | undefined;
  let duckdbBig: CommandCost | undefined;
  if (bigCount > 0) {
    await rm(file, { force: true });
    context.progress(`generating ${formatCount(bigCount)} events`);
    await writeEventLines(bigFile, generateEventLines({ count: bigCount, seed: 2 }));
    big = await reportOn(bigFile, bigCount, "js");
    engineBig = await reportOn(bigFile, bigCount, "duckdb");
    duckdbBig = await duckdbOn(bigFile, bigCount);
    await rm(bigFile, { force: true });
  }
  context.progress("a 30-day report through the SQL API fake");
  const volume = await measureSqlVolume(context.quick ? 20_000 : 200_000);

  // The start-up rows were measured three times; the table shows the last of each.
  const shownRows = rows.filter((_, index) => isLastOfKind(rows, index));
  const table = markdownTable(
    ["tool", "events", "wall time", "CPU time", "events/s", "peak RSS"],
    shownRows.map((row) => {
      if (typeof row.cost === "string")
        return [row.tool, formatCount(row.events), row.cost, "—", "—", "—"];
      return [
        row.tool,
        formatCount(row.events),
        `${(row.cost.wallMs / 1000).toFixed(2)} s`,
        row.cost.cpuMs === undefined ? "—" : `${(row.cost.cpuMs / 1000).toFixed(2)} s`,
        row.events <= 1 ? "—" : formatCount((row.events * 1000) / row.cost.wallMs),
        row.cost.peakRssBytes === undefined ? "—" : formatBytes(row.cost.peakRssBytes),
      ];
    }),
    ["left", "right", "right", "right", "right", "right"],
  );
  // The report's speed over DuckDB's (events/s, the same file): > 1 is faster.
  const overDuckdb = (ours: CommandCost, theirs: CommandCost) => ratio(theirs.wallMs, ours.wallMs);
  const smallRatio = overDuckdb(report, duckdbSmall);
  const bigRatio = big && duckdbBig ? overDuckdb(big, duckdbBig) : Number.NaN;
  const engineRatio = overDuckdb(engine, duckdbSmall);
  const engineBigRatio = engineBig && duckdbBig ? overDuckdb(engineBig, duckdbBig) : Number.NaN;
  // The engine the target is judged by: the faster at the size that counts.
  const [jsAt, duckdbAt] = big ? [bigRatio, engineBigRatio] : [smallRatio, engineRatio];
  const best: Engine = duckdbAt >= jsAt ? "duckdb" : "js";
  const bestRatio = Math.max(jsAt, duckdbAt);
  const speedup = jq === undefined ? Number.NaN : ratio(jq.wallMs, report.wallMs);
  const growth = (large: CommandCost | undefined, small: CommandCost) =>
    large?.peakRssBytes !== undefined && small.peakRssBytes !== undefined
      ? ratio(large.peakRssBytes, small.peakRssBytes)
      : Number.NaN;
  const memoryGrowth = growth(big, report);
  const engineGrowth = growth(engineBig, engine);
  const targets: TargetCheck[] = [
    {
      name: "vs DuckDB",
      goal: `≥ 1.0× DuckDB's events/s on one thread at ${big ? "10 M" : "1 M (quick)"}, by one engine`,
      measured: `--engine duckdb ${formatRatio(duckdbAt)}, --engine js ${formatRatio(jsAt)}`,
      met: bestRatio >= 1,
    },
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
      goal: "10 M events ≤ 1.25× the peak RSS of 1 M, each engine",
      measured: `duckdb ${engineGrowth.toFixed(2)}×, js ${memoryGrowth.toFixed(2)}×`,
      met: memoryGrowth <= 1.25 && engineGrowth <= 1.25,
    });
  }
  const body = [
    `${formatCount(count)} generated events (${formatBytes(size)}, \`tools/scripts/generate-events.ts\`, seed 1)${big ? ` and ${formatCount(bigCount)} (seed 2, about ${formatBytes((size * bigCount) / count)})` : ""}, each tool a separate process reading the same file; wall time, CPU time (user + system, every thread) and peak RSS from GNU time; the built CLI (\`bin/stepwise.js\` → \`dist/\`), which reads a file of 64 MiB or more with one worker thread per core (at most 4) and merges their counts to the figures one thread gives. **DuckDB is the anchor**: \`@duckdb/node-api\` (\`tools/bench/servers/duckdb-report.mjs\`, plain \`node\`) on one thread, \`read_ndjson\` with the columns the report reads, one GROUP BY over gateway, route, step, provider and model with calls, successes, tokens, cost, cache hits and \`quantile_disc\` p50/p95/p99; checked to count every event. At ${formatCount(count)} events the report and DuckDB ran twice, interleaved (the table shows the second pair). Both jq programs group by gateway, route, step, provider and model and sum calls, successes, tokens, cost and cache hits; \`group_by\` also sorts each group's latencies for p50/p95/p99, as \`stepwise report\` does (with a bounded sketch), and must hold the whole file in memory to do so; the streaming \`reduce\` runs in constant memory but cannot give percentiles. Both are checked to count every event. \`stepwise report\` also validates each event and computes availability, fallback rate and step shares. Start-up is the best of seven runs of a report of a one-event file (the run least disturbed by other load), with the medians and bare \`node -e 0\` beside it.`,
    "",
    table,
    "",
    `**Against DuckDB on one thread**: \`stepwise report --engine duckdb\` (DuckDB reads and groups the lines on every core, the report's own code counts the groups: \`src/analytics/duckdb/\`) ran at **${formatRatio(engineRatio)}** DuckDB's events/s on ${formatCount(count)} events${big ? ` and **${formatRatio(engineBigRatio)}** on ${formatCount(bigCount)}` : ""}, using ${formatRatio(ratio(engine.cpuMs ?? Number.NaN, duckdbSmall.cpuMs ?? Number.NaN))} its CPU time at ${formatCount(count)}${engineBig ? `; its peak RSS at ${formatCount(bigCount)} is ${formatBytes(engineBig.peakRssBytes ?? Number.NaN)}, **${engineGrowth.toFixed(2)}×** that of ${formatCount(count)}` : ""}. \`stepwise report --engine js\` ran at **${formatRatio(smallRatio)}** on ${formatCount(count)} events${big ? ` and **${formatRatio(bigRatio)}** on ${formatCount(bigCount)}` : ""}, using ${formatRatio(ratio(report.cpuMs ?? Number.NaN, duckdbSmall.cpuMs ?? Number.NaN))} its CPU time at ${formatCount(count)} (the report's threads share the machine's cores; DuckDB uses one).`,
    jq === undefined
      ? "jq was not installed, so there is no comparison with it in this run (`apt-get install -y jq`)."
      : `\`stepwise report\` ran **${speedup.toFixed(1)}×** as fast as jq's \`group_by\` on the same ${formatCount(count)} events, at ${formatRatio(ratio(report.peakRssBytes ?? Number.NaN, jq.peakRssBytes ?? Number.NaN))} its peak memory. Start-up: **${(startup / 1000).toFixed(2)} s**, the best of seven reports of a one-event file (median ${seconds(quantile(startups.wallMs, 0.5))}, CPU ${seconds(quantile(startups.cpuMs, 0.5))} at the median); bare \`node -e 0\` took ${seconds(Math.min(...startups.bareWallMs))} at best and ${seconds(quantile(startups.bareWallMs, 0.5))} at the median between them, which is what the machine's other load adds.`,
    big
      ? `At ${formatCount(bigCount)} events the peak RSS is ${formatBytes(big.peakRssBytes ?? Number.NaN)}, **${memoryGrowth.toFixed(2)}×** that of ${formatCount(count)}: memory stays flat while the file grows tenfold.`
      : "The 10 M-event run is made in full mode only.",
    "",
    `**A 30-day live report** (\`--source analytics-engine\`, default grouping, automatic ${volume.bucket} buckets) over ${formatCount(volume.points)} points standing for ${formatCount(volume.calls)} calls (every fourth point sampled at 1 in 10), answered by the SQL API fake running the report's SQL in DuckDB: **${volume.requests} requests, ${formatCount(volume.rows)} aggregate rows, ${formatBytes(volume.bytes)} fetched**. Exporting the points instead (\`SELECT * … FORMAT JSONEachRow\`) would fetch ${formatBytes(volume.exportBytes)} (${formatRatio(ratio(volume.exportBytes, volume.bytes))} as much). The fetched rows grow with groups × buckets, not with calls, so a month of hundreds of millions of calls costs about the same.`,
    "",
    "Commands (from the repository root, after `npm run build:js`; `events.jsonl` made by `npx tsx tools/scripts/generate-events.ts --count " +
      String(count) +
      " --out events.jsonl`" +
      (big
        ? `, \`events-10m.jsonl\` by \`npx tsx tools/scripts/generate-events.ts --count ${bigCount} --seed 2 --out events-10m.jsonl\``
        : "") +
      "):",
    "",
    "```sh",
    ...[...new Set(rows.map((row) => `/usr/bin/time -v ${row.command} > /dev/null`))],
    "```",
  ].join("\n");
  return {
    body,
    headline: `stepwise report --engine ${best} ${formatRatio(bestRatio)} DuckDB (1 thread) at ${big ? "10 M" : formatCount(count)}${bestRatio >= 1 ? " (meets ≥ 1.0×)" : ""}; --engine duckdb ${formatCount((count * 1000) / engine.wallMs)} events/s, ${formatRatio(engineRatio)}${big ? `, 10 M: ${formatRatio(engineBigRatio)}` : ""}; --engine js ${formatCount((count * 1000) / report.wallMs)} events/s, ${formatRatio(smallRatio)}${big ? `, 10 M: ${formatRatio(bigRatio)}` : ""} (${jq === undefined ? "jq missing" : `${speedup.toFixed(1)}× jq group_by`}), start-up ${(startup / 1000).toFixed(2)} s, peak ${formatBytes(report.peakRssBytes ?? Number.NaN)}${big ? ` (10 M: ${formatBytes(big.peakRssBytes ?? Number.NaN)})` : ""}; 30-day SQL report ${formatBytes(volume.bytes)} fetched`,
    targets,
    noise: noiseStatement(
      `one report and one DuckDB run of ${formatCount(count)} events; one start-up and one \`node -e 0\``,
      [
        {
          figure: "the report (--engine js) over DuckDB",
          values: rounds.map((round) => overDuckdb(round.report, round.duckdb)),
          format: formatRatio,
        },
        {
          figure: "the report (--engine duckdb) over DuckDB",
          values: rounds.map((round) => overDuckdb(round.engine, round.duckdb)),
          format: formatRatio,
        },
        {
          figure: "the report's start-up over `node -e 0`",
          values: startups.wallMs.map((wall, index) => wall / startups.bareWallMs[index]!),
          format: formatRatio,
        },
      ],
    ),
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
