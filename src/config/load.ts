/**
 * @module
 * Loading a config from disk (Node only): `Pulumi.<stack>.yaml` (the `stepwise:` namespace; other
 * namespaces such as `cloudflare:` are ignored) or any YAML or JSON file holding the same keys.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Locate } from "./document.ts";
import { ConfigError } from "./errors.ts";
import { parseConfig } from "./parse.ts";
import type { StepwiseConfig } from "./schema.ts";
import { closestName } from "./suggest.ts";
import { readYamlDocument } from "./yaml-document.ts";

/** The Pulumi project name: config keys are `stepwise:<key>`. */
export const configNamespace = "stepwise";

export interface LoadConfigOptions {
  /** Stack name: reads `Pulumi.<stack>.yaml` from `cwd`. */
  readonly stack?: string;
  /** Any YAML or JSON file, either a Pulumi stack file or a plain config. */
  readonly file?: string;
  /** Directory to resolve paths from; defaults to `process.cwd()` at call time. */
  readonly cwd?: string;
}

export interface LoadedConfig {
  readonly config: StepwiseConfig;
  /** The file it came from, relative to cwd. */
  readonly source: string;
  /** Maps a config path to its line in the file, for messages about a valid config. */
  readonly locate: Locate;
}

/**
 * Reads and validates a config file. Defaults to the `dev` stack.
 * @throws {ConfigError} when the file is missing, unreadable or invalid.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const { text, source } = await readConfigFile(options);
  return { ...readConfigText(text, source), source };
}

/** A config file's Stepwise part, not yet validated, and where each of its fields is. */
export interface ConfigInput {
  /** The Stepwise keys (a stack file's `stepwise:` namespace without the prefix). */
  readonly input: unknown;
  /** The file it came from, relative to cwd. */
  readonly source: string;
  /** Maps a config path to its line in the file. */
  readonly locate: Locate;
  /** How the file writes a top-level key (`stepwise:models` in a stack file). */
  readonly topLevelKey?: (key: string) => string;
}

/**
 * Reads a config file without validating the config: what `stepwise validate` judges.
 * @throws {ConfigError} when the file is missing, empty or not YAML, or a stack file has no
 * `stepwise:` keys.
 */
export async function loadConfigInput(options: LoadConfigOptions = {}): Promise<ConfigInput> {
  const { text, source } = await readConfigFile(options);
  return readConfigInput(text, source);
}

async function readConfigFile(
  options: LoadConfigOptions,
): Promise<{ text: string; source: string }> {
  const cwd = options.cwd ?? process.cwd();
  const relative = options.file ?? `Pulumi.${options.stack ?? "dev"}.yaml`;
  const absolute = path.resolve(cwd, relative);
  const source = path.relative(cwd, absolute) || relative;
  try {
    return { text: await readFile(absolute, "utf8"), source };
  } catch (error) {
    const hint = options.file
      ? "check the --file path"
      : `create it (see README.md) or pick another stack with --stack, or a file with --file`;
    throw new ConfigError({
      code: "config_not_found",
      source,
      issues: [
        {
          path: "",
          message: `cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? error}; ${hint}`,
        },
      ],
      cause: error,
    });
  }
}

/** Parses YAML or JSON text (JSON is YAML) and validates the Stepwise part of it. */
export function parseConfigText(text: string, source: string): StepwiseConfig {
  return readConfigText(text, source).config;
}

/** `parseConfigText`, also returning where each config path is in the text. */
export function readConfigText(
  text: string,
  source: string,
): { config: StepwiseConfig; locate: Locate } {
  const { input, locate, topLevelKey } = readConfigInput(text, source);
  const config = parseConfig(input, { source, locate, ...(topLevelKey ? { topLevelKey } : {}) });
  return { config, locate };
}

/** The Stepwise part of YAML or JSON text, not yet validated. */
export function readConfigInput(text: string, source: string): ConfigInput {
  const document = readYamlDocument(text);
  if (!document.ok)
    throw new ConfigError({ code: "config_unreadable", source, issues: document.issues });
  if (document.value === null || document.value === undefined) {
    throw new ConfigError({
      code: "config_invalid",
      source,
      issues: [
        {
          path: "",
          message: `the file is empty: a Stepwise config needs at least stepwise:accountId and stepwise:gateways under config: (Pulumi.dev.yaml is a complete example)`,
        },
      ],
    });
  }
  const isStackFile = isStackFileValue(document.value);
  if (isStackFile) assertNamespace(document.value.config, source, document.locate);
  const input = isStackFile ? extractNamespace(document.value.config) : document.value;
  // In a stack file, config path [gateways, 0] lives at [config, "stepwise:gateways", 0].
  const locate = (configPath: readonly PropertyKey[]): number | undefined => {
    const [first, ...rest] = configPath;
    if (!isStackFile) return document.locate(configPath);
    return document.locate(
      first === undefined ? ["config"] : ["config", `${configNamespace}:${String(first)}`, ...rest],
    );
  };
  return {
    input,
    source,
    locate,
    ...(isStackFile ? { topLevelKey: (key: string) => `${configNamespace}:${key}` } : {}),
  };
}

/** A Pulumi stack file: a top-level `config:` mapping and no Stepwise keys beside it. */
function isStackFileValue(value: unknown): value is { config: Record<string, unknown> } {
  if (typeof value !== "object" || value === null || !("config" in value)) return false;
  if ("accountId" in value || "gateways" in value) return false;
  const config = (value as { config: unknown }).config;
  return typeof config === "object" && config !== null && !Array.isArray(config);
}

/**
 * A stack file whose `config:` has no `stepwise:` key at all: say so (and which key was probably
 * meant) instead of reporting every Stepwise key as missing.
 */
function assertNamespace(
  config: Record<string, unknown>,
  source: string,
  locate: (path: readonly PropertyKey[]) => number | undefined,
): void {
  const prefix = `${configNamespace}:`;
  const keys = Object.keys(config);
  if (keys.some((key) => key.startsWith(prefix))) return;
  const namespaces = [...new Set(keys.map((key) => key.split(":")[0]!))];
  const meant = closestName(configNamespace, namespaces);
  const found = keys.length === 0 ? "it is empty" : `it has ${keys.join(", ")}`;
  const hint =
    meant === undefined
      ? `write the Stepwise keys as ${prefix}accountId, ${prefix}gateways, … (Pulumi.dev.yaml is a complete example)`
      : `did you mean "${prefix}" instead of "${meant}:"? Pulumi names each key <project>:<key>, and this project is ${configNamespace}`;
  const line = locate(["config"]);
  throw new ConfigError({
    code: "config_invalid",
    source,
    issues: [
      {
        path: "",
        message: `no ${prefix} keys under config: (${found}); ${hint}`,
        ...(line === undefined ? {} : { line }),
      },
    ],
  });
}

/** `{ "stepwise:gateways": [...], "cloudflare:apiToken": ... }` → `{ gateways: [...] }`. */
function extractNamespace(config: Record<string, unknown>): Record<string, unknown> {
  const prefix = `${configNamespace}:`;
  return Object.fromEntries(
    Object.entries(config)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, value]) => [key.slice(prefix.length), value]),
  );
}
