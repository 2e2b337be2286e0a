/**
 * The CLI's conventions, through the built `stepwise` command as a user runs it: exit code 2 for
 * a usage error (with the command's help hint), 1 for a failed check, 0 otherwise, all said in
 * `--help`; no help line shows `(default: [])`.
 */
import { describe, expect, it } from "vitest";
import { createProgram } from "../../src/cli/main.ts";
import { stepwise } from "../helpers/stepwise-cli.ts";

const commandNames = createProgram().commands.map((command) => command.name());

describe("stepwise exit codes", () => {
  it("prints the help and exits 0 when run without arguments", async () => {
    const { code, stdout } = await stepwise();
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: stepwise [options] [command]");
    expect(stdout).toMatch(/Exit codes: 0 ok · 1 a check failed .* · 2 usage error/);
  });

  it.each([
    ["an unknown option", ["demo", "--bogus"], /unknown option '--bogus'/, "demo"],
    ["a bad option value", ["chaos", "--calls", "zero"], /expected a whole number/, "chaos"],
    [
      "a missing option",
      ["rotate", "openai"],
      /required option '-k, --key-file <file>' not specified/,
      "rotate",
    ],
    [
      "two options that exclude each other",
      ["validate", "--stack", "dev", "--file", "x.yaml"],
      /cannot be used with/,
      "validate",
    ],
    [
      "a config file that is not there",
      ["validate", "--file", "missing.yaml"],
      /cannot read missing.yaml: ENOENT/,
      "validate",
    ],
    ["a bad --port", ["dev", "--port", "http"], /--port must be a number/, "dev"],
    ["a bad --by", ["report", "-", "--by", "colour"], /--by "colour" is not a dimension/, "report"],
  ])("exits 2 on %s, with the command's help hint", async (_name, args, message, command) => {
    const { code, stderr } = await stepwise(...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).toContain(`(run "stepwise ${command} --help" for usage)`);
  });

  it("exits 2 on an unknown command, pointing at the main help", async () => {
    const { code, stderr } = await stepwise("deploy");
    expect(code).toBe(2);
    expect(stderr).toContain("unknown command 'deploy'");
    expect(stderr).toContain('(run "stepwise --help" for usage)');
  });

  it("exits 1 when a check fails: an invalid config", async () => {
    const { code, stderr } = await stepwise(
      "validate",
      "--file",
      "test/__fixtures__/config/Pulumi.broken.yaml",
    );
    expect(code).toBe(1);
    expect(stderr).not.toContain("--help");
  });

  it.each(commandNames)(
    "documents its exit codes and hides empty defaults in `%s --help`",
    async (name) => {
      const { code, stdout } = await stepwise(name, "--help");
      expect(code).toBe(0);
      expect(stdout).toMatch(/Exit codes: 0 ok · 1 .+ · 2 usage error/);
      expect(stdout).not.toContain("(default: [])");
    },
  );
});
