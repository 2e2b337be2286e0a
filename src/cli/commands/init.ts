/**
 * @module
 * `stepwise init [dir]`: a new gateway repository in one command — a Pulumi project whose program
 * uses the package's components, a stack file, CI, a test of its routes on the emulator and a
 * README. On a terminal it asks for what the flags leave out (`@inquirer/input`); elsewhere (CI,
 * a pipe) it takes flags only. It never overwrites a file.
 */
import path from "node:path";
import { Command } from "commander";
import pc from "picocolors";
import { exitCodesHelp, UsageError } from "../exit-codes.ts";
import type { InitAnswers } from "../init/templates.ts";

interface InitOptions {
  name?: string;
  stack: string;
  accountId?: string;
  gateway: string;
  provider: string;
  model: string;
}

/** How the command asks; a terminal's prompt by default. Injectable for tests. */
export interface InitDependencies {
  readonly interactive?: boolean;
  readonly ask?: (message: string, defaultValue: string | undefined) => Promise<string>;
}

export function initCommand(dependencies: InitDependencies = {}): Command {
  return new Command("init")
    .description(
      "Write a new gateway repository: Pulumi project, stack file, CI workflow, a test of its routes on the emulator, README (never overwrites a file)",
    )
    .argument("[dir]", "where to write it (created if missing)", ".")
    .option("--name <name>", "the repository's npm name (default: the folder's name)")
    .option("-s, --stack <name>", "the stack: writes Pulumi.<name>.yaml", "dev")
    .option("--account-id <id>", "Cloudflare account id, 32 hex characters (asked on a terminal)")
    .option("--gateway <id>", "the first gateway's id", "chat")
    .option("--provider <slug>", "provider of the default route's step", "openai")
    .option("--model <model>", "model of the default route's step", "gpt-4o-mini")
    .addHelpText(
      "after",
      `\nOn a terminal, asks for each value the flags leave out; in CI or a pipe, flags only (--account-id is required).\n\nExamples:\n  stepwise init my-gateway\n  stepwise init my-gateway --account-id 0123456789abcdef0123456789abcdef --stack prod\n${exitCodesHelp("a file it would write already exists (named)")}`,
    )
    .action(async (dir: string, options: InitOptions, command: Command) => {
      const directory = path.resolve(dir);
      const interactive =
        dependencies.interactive ??
        (process.stdin.isTTY === true && process.stdout.isTTY === true && !process.env.CI);
      const ask = dependencies.ask ?? askOnTerminal;
      const given = (name: string) => command.getOptionValueSource(name) === "cli";
      const value = async (name: keyof InitOptions, message: string, fallback?: string) => {
        const current = options[name];
        if (given(name) || !interactive) return current ?? fallback;
        return ask(message, current ?? fallback);
      };
      const answers: InitAnswers = {
        name: (await value("name", "Repository name", path.basename(directory))) as string,
        stack: (await value("stack", "Stack name"))!,
        accountId: (await value("accountId", "Cloudflare account id")) ?? "",
        gateway: (await value("gateway", "Gateway id"))!,
        provider: (await value("provider", "Provider of the default route"))!,
        model: (await value("model", "Model of the default route"))!,
      };
      if (answers.accountId === "") {
        throw new UsageError(
          "stepwise init needs the Cloudflare account id: pass --account-id <32 hex characters> (it is asked only on a terminal)",
        );
      }
      await checkAnswers(answers);
      const { writeGatewayRepo } = await import("../init/scaffold.ts");
      const written = await writeGatewayRepo(directory, answers);
      const shown = path.relative(process.cwd(), directory) || ".";
      console.log(pc.green(`✔ wrote a gateway repository in ${shown}`));
      for (const file of written) console.log(`  ${file}`);
      console.log(
        `\nNext: cd ${shown} && npm install && npx stepwise validate --stack ${answers.stack} && npx stepwise plan --stack ${answers.stack} && npm test`,
      );
    });
}

/** The stack file it would write, checked as `stepwise validate` would: a bad value is a usage error. */
async function checkAnswers(answers: InitAnswers): Promise<void> {
  const { repositoryFiles } = await import("../init/templates.ts");
  const { ConfigError, parseConfigText } = await import("../../config/index.ts");
  const source = `Pulumi.${answers.stack}.yaml`;
  const text = repositoryFiles(answers, {
    name: "stepwise",
    version: "0",
    versions: { "@pulumi/cloudflare": "0", "@pulumi/pulumi": "0", tsx: "0", vitest: "0" },
  })[source]!;
  try {
    parseConfigText(text, source);
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    const flags: Record<string, string> = {
      accountId: "--account-id",
      "gateways[0].id": "--gateway",
      "gateways[0].routes.default.steps[0]": "--provider/--model",
    };
    const lines = error.issues.map((issue) => {
      const flag = Object.entries(flags).find(([prefix]) => issue.path.startsWith(prefix))?.[1];
      return `  ${flag ?? issue.path}: ${issue.message}`;
    });
    throw new UsageError(`stepwise init cannot use these values:\n${lines.join("\n")}`, error);
  }
}

async function askOnTerminal(message: string, defaultValue: string | undefined): Promise<string> {
  const { default: input } = await import("@inquirer/input");
  return input({ message, ...(defaultValue === undefined ? {} : { default: defaultValue }) });
}
