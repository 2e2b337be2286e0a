/**
 * @module
 * `stepwise plan --stack <name>`: what `pulumi up` would create for a stack, without a Cloudflare
 * account or the Pulumi CLI. It runs the program every Stepwise project runs (the stack file's
 * config, the same preflight, the package's components) under Pulumi's mocks and prints each
 * resource with its inputs; `--json` for machines. Secrets are never decrypted.
 */
import { Command, Option } from "commander";
import { StepwiseError } from "../../errors/index.ts";
import { exitCodeOf, exitCodesHelp } from "../exit-codes.ts";
import {
  type PackageResolver,
  pulumiPackages,
  requireOptionalPackages,
} from "../optional-packages.ts";

interface PlanOptions {
  stack: string;
  json?: boolean;
}

/** What the plan reads from its surroundings; tests inject these. */
export interface PlanCommandDependencies {
  /** Whether an optional package is installed (default: Node's resolution). */
  readonly resolvePackage?: PackageResolver;
}

export function planCommand(dependencies: PlanCommandDependencies = {}): Command {
  return new Command("plan")
    .description(
      "Show what `pulumi up` would create for a stack: runs the Pulumi program under mocks (no account, nothing created); exit 1 if the program would refuse the config",
    )
    .addOption(new Option("-s, --stack <name>", "plan Pulumi.<name>.yaml").default("dev"))
    .option("--json", "print the plan (or the problems) as JSON: every resource with its inputs")
    .addHelpText(
      "after",
      `\nRuns the same preflight as the program: a config \`pulumi up\` would refuse fails here with the same message.\nSecure values in the stack file count as set and print as [secret]; they are never decrypted.\nThe companion Worker's bundle is read from the package (or $STEPWISE_WORKER_BUNDLE).\n\nExamples:\n  stepwise plan --stack dev\n  stepwise plan --stack prod --json | jq '.resources[] | .type + " " + .name'\n${exitCodesHelp("the program would refuse the config (a problem, a missing secret or bundle)")}`,
    )
    .action(async (options: PlanOptions) => {
      const { planStack, formatPlan } = await loadPlanner(dependencies.resolvePackage);
      try {
        const plan = await planStack({ stack: options.stack });
        if (options.json) {
          const { ordered } = await import("../../pulumi/plan-text.ts");
          printJson({ ok: true, ...plan, resources: ordered(plan.resources) });
        } else process.stdout.write(formatPlan(plan));
      } catch (error) {
        if (!options.json || !StepwiseError.isInstance(error)) throw error;
        const { ConfigError } = await import("../../config/errors.ts");
        printJson({
          ok: false,
          code: error.code,
          ...(ConfigError.isInstance(error)
            ? { source: error.source, issues: error.issues }
            : { message: error.message }),
        });
        process.exitCode = exitCodeOf(error);
      }
    });
}

/** The planner, after checking that Pulumi's packages are installed. */
async function loadPlanner(resolvePackage: PackageResolver | undefined) {
  requireOptionalPackages("stepwise plan", pulumiPackages, resolvePackage);
  const [plan, text] = await Promise.all([
    import("../../pulumi/plan.ts"),
    import("../../pulumi/plan-text.ts"),
  ]);
  return { planStack: plan.planStack, formatPlan: text.formatPlan };
}

function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
