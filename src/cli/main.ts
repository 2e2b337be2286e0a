/**
 * @module
 * The `stepwise` command line. Each command lives in `commands/<name>.ts` and is listed in
 * `commands/index.ts`; this file only wires them into one program and maps outcomes to exit
 * codes (`exit-codes.ts`): 0 ok, 1 a check failed, 2 a usage error with the command's help hint.
 */
import { Command, CommanderError, Help, type Option } from "commander";
import pc from "picocolors";
import { StepwiseError } from "../errors/index.ts";
import { commands } from "./commands/index.ts";
import { exitCodeOf, exitCodes } from "./exit-codes.ts";

/**
 * Help that leaves out the `(default: [])` of repeatable options: they start empty, which the
 * word "repeatable" in their description already says.
 */
const helpConfiguration = {
  optionDescription(this: Help, option: Option): string {
    const emptyList = Array.isArray(option.defaultValue) && option.defaultValue.length === 0;
    const shown = emptyList
      ? Object.assign(Object.create(option), { defaultValue: undefined })
      : option;
    return Help.prototype.optionDescription.call(this, shown);
  },
};

const helpHint = (name: string) => `(run "stepwise ${name} --help" for usage)`;

export function createProgram(): Command {
  const program = new Command("stepwise")
    .description(
      "Cloudflare AI Gateway as code: validate, run locally, rotate keys, report step rates.",
    )
    .version("0.1.0")
    .configureHelp(helpConfiguration)
    .showHelpAfterError('(run "stepwise --help" for usage)')
    .addHelpText(
      "after",
      "\nExit codes: 0 ok · 1 a check failed (invalid config, crossed threshold, broken invariant) · 2 usage error (unknown option, bad value, missing file)\nEach command's --help says what makes it exit 1.",
    )
    .exitOverride();
  for (const create of commands) {
    const command = create();
    program.addCommand(
      command
        .configureHelp(helpConfiguration)
        .showHelpAfterError(helpHint(command.name()))
        .exitOverride(),
    );
  }
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = createProgram();
  if (argv.length === 0) {
    // Nothing asked: the help is the answer.
    program.outputHelp();
    return exitCodes.ok;
  }
  let commandName: string | undefined;
  program.hook("preAction", (_program, action) => {
    commandName = action.name();
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0; Commander has already printed
      // what was wrong with the command line, and the help hint.
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
    }
    if (StepwiseError.isInstance(error)) {
      const code = exitCodeOf(error);
      console.error(pc.red(error.message));
      // A missing optional package is not a wrong command line: its message is the whole fix.
      if (
        code === exitCodes.usage &&
        commandName !== undefined &&
        error.code !== "optional_package_missing"
      )
        console.error(helpHint(commandName));
      return code;
    }
    console.error(
      pc.red(
        `Unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      ),
    );
    return exitCodes.failed;
  }
}
