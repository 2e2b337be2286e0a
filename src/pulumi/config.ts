/**
 * @module
 * The stack config, read through the one Stepwise schema: every `stepwise:*` key of the running
 * stack goes through `parseConfig`, the same validation `stepwise validate` runs, so a config that
 * the CLI rejects never reaches the Cloudflare API. Secrets are read again through
 * `pulumi.Config#getSecret`, so they stay secret in state and outputs.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import {
  ConfigError,
  type ConfigIssue,
  configNamespace,
  findMissingSecrets,
  locateFindings,
  type PresentSecrets,
  readConfigInput,
  type StepwiseConfig,
} from "../config/index.ts";
import { type ConfigVerdict, judgeConfig } from "../routes/config-verdict.ts";
import { pulumiProjectRoot } from "./paths.ts";

/** The secrets a deploy uses, as Pulumi secret outputs. */
export interface StackSecrets {
  /** `stepwise:gatewayToken`, bound to the Worker as `GATEWAY_TOKEN`. */
  readonly gatewayToken?: pulumi.Input<string> | undefined;
  /** `stepwise:rotateToken`, bound to the Worker as `ROTATE_TOKEN`. */
  readonly rotateToken?: pulumi.Input<string> | undefined;
  /**
   * `stepwise:secretsStoreToken`, bound to the Worker as `SECRETS_STORE_TOKEN` (an API token with
   * the "Secrets Store Edit" permission only), so rotations reach the BYOK secrets.
   */
  readonly secretsStoreToken?: pulumi.Input<string> | undefined;
  /**
   * `stepwise:analyticsApiToken`, bound to the Worker as `ANALYTICS_API_TOKEN` (an API token with
   * "Account Analytics Read" only): the cron's daily summary runs with it.
   */
  readonly analyticsApiToken?: pulumi.Input<string> | undefined;
  /** `stepwise:byokKeys.<provider>`, stored in Secrets Store for BYOK gateways. */
  readonly byokKeys?: Readonly<Record<string, pulumi.Input<string>>> | undefined;
  /**
   * `cloudflare:apiToken`, the provider's own token, also used for the BYOK provider configs
   * (called through the `cloudflare` SDK; without it they read `$CLOUDFLARE_API_TOKEN`).
   */
  readonly cloudflareApiToken?: pulumi.Input<string> | undefined;
}

export interface StackConfig {
  readonly config: StepwiseConfig;
  readonly secrets: StackSecrets;
  /** `Pulumi.<stack>.yaml`, as named in error messages. */
  readonly source: string;
}

/**
 * Reads and validates the running stack's `stepwise:*` config.
 * @param projectRoot where the stack file is, for its line numbers in messages. Default: the
 *   nearest folder with a `Pulumi.yaml` above the working directory.
 * @throws {ConfigError} with the same message `stepwise validate` prints for the stack file.
 */
export function readStackConfig(projectRoot: string = pulumiProjectRoot()): StackConfig {
  const source = `Pulumi.${pulumi.getStack()}.yaml`;
  const input = namespacedInput(pulumi.runtime.allConfig(), configNamespace);
  const config = parseStackConfig(input, source, path.join(projectRoot, source));
  const settings = new pulumi.Config(configNamespace);
  const byokKeys = settings.getSecretObject<Record<string, string>>("byokKeys");
  const secrets: StackSecrets = {
    gatewayToken: settings.getSecret("gatewayToken"),
    rotateToken: settings.getSecret("rotateToken"),
    secretsStoreToken: settings.getSecret("secretsStoreToken"),
    analyticsApiToken: settings.getSecret("analyticsApiToken"),
    cloudflareApiToken: new pulumi.Config("cloudflare").getSecret("apiToken"),
    byokKeys: byokKeys
      ? Object.fromEntries(
          Object.keys(config.byokKeys ?? {}).map((provider) => [
            provider,
            byokKeys.apply((keys) => keys[provider] as string),
          ]),
        )
      : undefined,
  };
  return { config, secrets, source };
}

/**
 * `{ "stepwise:gateways": "[…]", "cloudflare:apiToken": "…" }` → `{ gateways: […] }`. Pulumi
 * hands every value over as a string, structured ones as JSON; only values that look like JSON
 * objects or arrays are parsed, so a string such as an all-digit account id stays a string.
 */
export function namespacedInput(
  allConfig: Readonly<Record<string, string>>,
  namespace: string,
): Record<string, unknown> {
  const prefix = `${namespace}:`;
  return Object.fromEntries(
    Object.entries(allConfig)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, value]) => [key.slice(prefix.length), parseStructured(value)]),
  );
}

function parseStructured(value: string): unknown {
  const trimmed = value.trimStart();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Validates the config with `judgeConfig`, the decision `stepwise validate` prints: every problem
 * at once, the secrets the deploy needs included. On failure, when the stack file on disk gives
 * the same problems, its error is thrown instead: the same text `stepwise validate` prints, line
 * numbers included. Otherwise (config from `--config-file`, an ESC environment…) the problems are
 * reported without lines.
 * @throws {ConfigError}
 */
export function parseStackConfig(
  input: unknown,
  source: string,
  stackFile: string = path.join(pulumiProjectRoot(), source),
): StepwiseConfig {
  const verdict = judgeConfig(input);
  if (verdict.config !== undefined && verdict.errors.length === 0) return verdict.config;
  const error = verdictError(verdict, source);
  throw sameErrorFromFile(error, stackFile, source) ?? error;
}

/** A verdict's errors as one `ConfigError`. */
export function verdictError(verdict: ConfigVerdict, source: string): ConfigError {
  return new ConfigError({
    code: verdict.code ?? "config_invalid",
    source,
    issues: verdict.errors,
  });
}

function sameErrorFromFile(
  error: ConfigError,
  stackFile: string,
  source: string,
): ConfigError | undefined {
  let text: string;
  try {
    text = readFileSync(stackFile, "utf8");
  } catch {
    return undefined;
  }
  try {
    const { input, locate, topLevelKey } = readConfigInput(text, source);
    const verdict = judgeConfig(input, { locate, ...(topLevelKey ? { topLevelKey } : {}) });
    const fileError = verdictError(verdict, source);
    return sameIssues(fileError.issues, error.issues) ? fileError : undefined;
  } catch (fileError) {
    if (ConfigError.isInstance(fileError) && sameIssues(fileError.issues, error.issues)) {
      return fileError;
    }
  }
  return undefined;
}

function sameIssues(a: readonly ConfigIssue[], b: readonly ConfigIssue[]): boolean {
  const key = (issue: ConfigIssue) => `${issue.path}\u0000${issue.message}`;
  const left = a.map(key).sort();
  const right = b.map(key).sort();
  return left.length === right.length && left.every((entry, index) => entry === right[index]);
}

/** Which deploy secrets a program was given, as `judgeConfig` takes them. */
export function presentSecrets(secrets: StackSecrets): PresentSecrets {
  return {
    rotateToken: secrets.rotateToken !== undefined,
    byokKeys: new Set(
      Object.entries(secrets.byokKeys ?? {})
        .filter(([, value]) => value !== undefined)
        .map(([provider]) => provider),
    ),
  };
}

export { byokProviders, deploysWorker } from "../config/index.ts";

/**
 * Secrets a deploy cannot do without, which the emulator does not need: the rotate token when
 * the Worker is deployed, a key for every BYOK provider (`findMissingSecrets`, which `stepwise
 * validate` and the preflight also run).
 * @throws {ConfigError} naming the `pulumi config set --secret` command for each.
 */
export function checkDeploySecrets(
  config: StepwiseConfig,
  secrets: StackSecrets,
  source: string,
): void {
  const missing = findMissingSecrets(config, presentSecrets(secrets));
  if (missing.length === 0) return;
  throw new ConfigError({ code: "config_invalid", source, issues: locateFindings(missing) });
}
