/**
 * @module
 * The `--stack` / `--file` options every command that reads the config shares.
 */
import { type Command, Option } from "commander";
import type { ConfigInput, LoadedConfig } from "../config/index.ts";

export interface ConfigSourceOptions {
  stack?: string;
  file?: string;
}

/** Adds `--stack <name>` (default dev) and `--file <path>` to a command. */
export function withConfigOptions(command: Command): Command {
  return command
    .addOption(
      new Option("-s, --stack <name>", "read Pulumi.<name>.yaml").default("dev").conflicts("file"),
    )
    .addOption(
      new Option("-f, --file <path>", "read any YAML or JSON config file instead of a stack file"),
    );
}

/**
 * Loads the config the user pointed at. Throws `ConfigError` with every problem. The config
 * module (zod, yaml) loads here, when a command runs, not when `stepwise --help` starts.
 */
export async function loadConfigFrom(
  options: ConfigSourceOptions,
  cwd: string = process.cwd(),
): Promise<LoadedConfig> {
  const { loadConfig } = await import("../config/index.ts");
  return options.file
    ? loadConfig({ file: options.file, cwd })
    : loadConfig({ stack: options.stack ?? "dev", cwd });
}

/** The config the user pointed at, read but not yet validated (what `stepwise validate` judges). */
export async function loadConfigInputFrom(
  options: ConfigSourceOptions,
  cwd: string = process.cwd(),
): Promise<ConfigInput> {
  const { loadConfigInput } = await import("../config/index.ts");
  return options.file
    ? loadConfigInput({ file: options.file, cwd })
    : loadConfigInput({ stack: options.stack ?? "dev", cwd });
}
