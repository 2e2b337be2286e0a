/**
 * @module
 * The `stepwise` command line. Each command lives in `commands/<name>.ts` and is listed in
 * `commands/index.ts`; this file only wires them into one program and maps failures to exit codes.
 */
import { Command, CommanderError } from "commander";
import pc from "picocolors";
import { StepwiseError } from "../errors/index.ts";
import { commands } from "./commands/index.ts";

export function createProgram(): Command {
  const program = new Command("stepwise")
    .description(
      "Cloudflare AI Gateway as code: validate, run locally, rotate keys, report step rates.",
    )
    .version("0.1.0")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  for (const create of commands) program.addCommand(create().exitOverride());
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode;
    }
    if (StepwiseError.isInstance(error)) {
      console.error(pc.red(error.message));
      // An error may carry its own exit code (2: the command was used wrongly).
      const code = (error as { exitCode?: unknown }).exitCode;
      return code === 2 ? 2 : 1;
    }
    console.error(
      pc.red(
        `Unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      ),
    );
    return 1;
  }
}
