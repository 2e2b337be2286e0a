/**
 * @module
 * `stepwise chaos` (`npm run chaos`): a fault campaign through the whole local system, with
 * seeded random faults of every kind and key rotations during the run. Prints availability
 * against the theory and each invariant as ✔/✖; exits with 1 when any invariant fails.
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

interface ChaosCommandOptions extends ConfigSourceOptions {
  calls?: number;
  concurrency?: number;
  seed: number;
  quick?: boolean;
  gateway?: string;
  route: string;
  rates?: number[];
  events?: string;
  json?: boolean;
}

function wholeNumber(minimum: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < minimum)
      throw new InvalidArgumentError(`expected a whole number of at least ${minimum}`);
    return parsed;
  };
}

function rateList(value: string): number[] {
  const rates = value.split(",").map((part) => Number(part.trim()));
  if (rates.length === 0 || rates.some((rate) => !Number.isFinite(rate) || rate < 0 || rate > 0.9))
    throw new InvalidArgumentError(
      "expected rates from 0 to 0.9 separated by commas, e.g. 0.3,0.2,0.1",
    );
  return rates;
}

/** What the campaign reads from its surroundings; tests inject these. */
export interface ChaosCommandDependencies {
  /** Whether an optional package is installed (default: Node's resolution). */
  readonly resolvePackage?: PackageResolver;
}

export function chaosCommand(dependencies: ChaosCommandDependencies = {}): Command {
  return withConfigOptions(new Command("chaos"))
    .description(
      "Run a fault campaign: calls through client → Worker → emulator with random faults of every kind and key rotations; checks invariants and availability",
    )
    .option("-n, --calls <count>", "calls to send (default 3000; 300 with --quick)", wholeNumber(1))
    .option(
      "-c, --concurrency <count>",
      "calls in flight at once (default 16; 12 with --quick)",
      wholeNumber(1),
    )
    .option("--seed <number>", "seed of the fault plan", wholeNumber(0), 1)
    .option("--quick", "a short campaign (under a minute)")
    .option("--gateway <id>", "gateway of the config (default: the first)")
    .option("--route <name>", "route whose providers get the faults", "default")
    .option(
      "--rates <list>",
      "fault rate per attempt of each step's provider (default 0.3,0.2,0.1)",
      rateList,
    )
    .option("--events <file>", "also write every call event to this JSON-lines file")
    .option("--json", "print the result as JSON on stdout (progress stays on stderr)")
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  stepwise chaos",
        "  stepwise chaos --quick",
        "  stepwise chaos --calls 10000 --concurrency 32 --seed 7 --rates 0.5,0.3,0.1",
        "  stepwise chaos --json > chaos.json",
        "",
        "Time budgets stretch to the machine: healthy calls are measured first. When calls fail on a",
        "machine starved for CPU (event-loop lag measured during the run), the report says so.",
        exitCodesHelp("an invariant failed"),
      ].join("\n"),
    )
    .action(async (options: ChaosCommandOptions) => {
      requireOptionalPackages("stepwise chaos", localSystemPackages, dependencies.resolvePackage);
      // Loaded when the command runs: the campaign pulls in Miniflare, which every other
      // command would otherwise pay for at start-up.
      const { renderReport, runCampaign } = await import("../../chaos/index.ts");
      const { config, source } = await loadConfigFrom(options);
      console.error(`${pc.bold("Stepwise fault campaign")} · ${source}`);
      const result = await runCampaign({
        config,
        calls: options.calls,
        concurrency: options.concurrency,
        seed: options.seed,
        quick: options.quick ?? false,
        gateway: options.gateway,
        route: options.route,
        rates: options.rates,
        eventsFile: options.events,
      });
      if (options.json) console.log(JSON.stringify(result, null, 2));
      else for (const line of ["", ...renderReport(result)]) console.log(line);
      if (!result.ok) process.exitCode = 1;
    });
}
