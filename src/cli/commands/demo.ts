/**
 * @module
 * `stepwise demo`: the main job (`npm start`). The whole system on one machine, under a realistic
 * traffic mix with outages, a 429 storm and a key rotation, ending with the step-rate table and,
 * when calls failed, why: the gateway's rate limit, a machine starved for CPU, or the faults.
 */
import { Command, InvalidArgumentError } from "commander";
import pc from "picocolors";
import { type ConfigSourceOptions, loadConfigFrom, withConfigOptions } from "../config-options.ts";
import { exitCodesHelp } from "../exit-codes.ts";
import {
  localSystemPackages,
  type PackageResolver,
  requireOptionalPackages,
} from "../optional-packages.ts";

interface DemoCommandOptions extends ConfigSourceOptions {
  calls: number;
  concurrency: number;
  rate: number;
  scenario?: string;
  outDir: string;
  timeoutCap: number;
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError("expected a whole number of at least 1");
  return parsed;
}

/** What the demo reads from its surroundings; tests inject these. */
export interface DemoCommandDependencies {
  /** Whether an optional package is installed (default: Node's resolution). */
  readonly resolvePackage?: PackageResolver;
}

export function demoCommand(dependencies: DemoCommandDependencies = {}): Command {
  return withConfigOptions(new Command("demo"))
    .description(
      "Run the whole system locally (emulator, mock providers, companion Worker) under outages and a key rotation, then print step rates",
    )
    .option("-n, --calls <count>", "calls to send", positiveInteger, 300)
    .option("-c, --concurrency <count>", "calls in flight at once", positiveInteger, 6)
    .option(
      "--rate <perSecond>",
      "target calls per second (keeps phases long enough to show circuits recover)",
      positiveInteger,
      30,
    )
    .option("--scenario <file>", "a YAML or JSON scenario instead of the built-in one")
    .option("--out-dir <dir>", "where events.jsonl and report.html go", ".stepwise/demo")
    .option("--timeout-cap <ms>", "cap on step timeouts during the demo", positiveInteger, 1_000)
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  stepwise demo",
        "  stepwise demo --calls 500 --concurrency 12 --rate 50 --scenario my-outage.yaml",
        "",
        "The gateway's rateLimit applies: more calls in one window than it allows are answered 429",
        "(the demo warns before it starts). Afterwards: stepwise report .stepwise/demo/events.jsonl --by provider",
        exitCodesHelp("a call has no event (one was lost)"),
      ].join("\n"),
    )
    .action(async (options: DemoCommandOptions) => {
      requireOptionalPackages("stepwise demo", localSystemPackages, dependencies.resolvePackage);
      // Loaded when the command runs: the demo pulls in Miniflare, which every other command
      // would otherwise pay for at start-up.
      const { defaultScenario, explainFailures, loadScenario, runDemo } = await import(
        "../../demo/index.ts"
      );
      const { config, source } = await loadConfigFrom(options);
      const scenario = options.scenario ? await loadScenario(options.scenario) : defaultScenario();
      console.log(
        `${pc.bold("Stepwise demo")} · ${source} · ${options.calls} calls, ${options.concurrency} at a time\n`,
      );
      const result = await runDemo({
        config,
        scenario,
        calls: options.calls,
        concurrency: options.concurrency,
        ratePerSecond: options.rate,
        outDir: options.outDir,
        timeoutCapMs: options.timeoutCap,
      });
      const totals = result.report.totals;
      const percent = (value: number | null) =>
        value === null ? "n/a" : `${(value * 100).toFixed(2)}%`;
      const lost = result.calls - result.events;
      console.log("");
      console.log(
        `availability ${pc.bold(percent(totals.availability))} · fallback rate ${pc.bold(percent(totals.fallbackRate))} · ${result.breakerTransitions} circuit transitions`,
      );
      const failed = [...result.failures.values()].reduce((sum, count) => sum + count, 0);
      if (failed > 0) {
        console.log(`${pc.yellow("⚠")} ${failed} calls failed:`);
        for (const line of explainFailures(result.failures, result.starvation))
          console.log(`  ${line}`);
      }
      console.log(
        lost === 0
          ? `${pc.green("✔")} nothing lost: ${result.calls} calls, ${result.events} events recorded`
          : `${pc.red("✖")} ${lost} calls have no event`,
      );
      console.log(`events: ${result.eventsFile}\nreport: ${result.htmlFile}`);
      if (lost !== 0) process.exitCode = 1;
    });
}
