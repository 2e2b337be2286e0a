/**
 * @module
 * Reads the Worker's settings from its bindings: the Stepwise config from `STEPWISE_CONFIG`
 * (validated by the one config schema), the gateway URL and the tokens. The config is parsed
 * once per isolate: the parse is kept beside the exact text it came from and reused while a
 * request's binding holds the same text (a redeploy, or a test's fresh `env`, brings new text and
 * a new parse). Everything else is read from `env` on every request.
 */
import { ConfigError } from "../config/errors.ts";
import { parseConfig } from "../config/parse.ts";
import type { GatewayConfig, StepwiseConfig } from "../config/schema.ts";
import type { WorkerEnv } from "./bindings.ts";

/** Everything the handlers need besides the KV binding. */
export interface WorkerSettings {
  readonly config: StepwiseConfig;
  /** Gateway base URL without a trailing slash. */
  readonly gatewayUrl: string;
  /** Sent upstream as `cf-aig-authorization`; undefined when not set. */
  readonly gatewayToken: string | undefined;
  /** Admin token; undefined when not set (then every admin call is refused). */
  readonly rotateToken: string | undefined;
}

/**
 * Builds the settings from `env`.
 * @throws {ConfigError} when `STEPWISE_CONFIG` is missing, not JSON, or not a valid config.
 */
export function readWorkerSettings(env: WorkerEnv): WorkerSettings {
  const config = parsedConfig(env.STEPWISE_CONFIG);
  const gatewayUrl = nonEmpty(env.GATEWAY_URL) ?? config.worker.gatewayUrl;
  return {
    config,
    gatewayUrl: gatewayUrl.replace(/\/+$/, ""),
    gatewayToken: nonEmpty(env.GATEWAY_TOKEN),
    rotateToken: nonEmpty(env.ROTATE_TOKEN),
  };
}

/** The last config parsed in this isolate and the binding value it came from. */
let lastParsed: { readonly raw: unknown; readonly config: StepwiseConfig } | undefined;

/** The parsed config, from this isolate's cache when the binding's value is unchanged. */
function parsedConfig(raw: unknown): StepwiseConfig {
  if (lastParsed !== undefined && lastParsed.raw === raw) return lastParsed.config;
  const config = readConfig(raw);
  lastParsed = { raw, config };
  return config;
}

function readConfig(raw: unknown): StepwiseConfig {
  let value: unknown = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") throw missingConfig();
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ConfigError({
        code: "config_invalid",
        source: "STEPWISE_CONFIG",
        issues: [
          { path: "", message: "is not valid JSON: set it to the JSON of the parsed config" },
        ],
      });
    }
  }
  if (value === undefined || value === null) throw missingConfig();
  // Secrets reach the Worker as secret bindings, never through this plain-text variable: drop
  // any copy (Pulumi strips them already).
  if (typeof value === "object" && !Array.isArray(value)) {
    const {
      gatewayToken: _gatewayToken,
      rotateToken: _rotateToken,
      byokKeys: _byokKeys,
      secretsStoreToken: _secretsStoreToken,
      analyticsApiToken: _analyticsApiToken,
      ...rest
    } = value as Record<string, unknown>;
    value = rest;
  }
  return parseConfig(value, { source: "STEPWISE_CONFIG" });
}

function missingConfig(): ConfigError {
  return new ConfigError({
    code: "config_invalid",
    source: "STEPWISE_CONFIG",
    issues: [
      {
        path: "",
        message:
          "is not set: deploy the Worker with Pulumi (it binds the stack config), or run it " +
          "locally with `npm run worker:dev` (it binds the dev stack's config)",
      },
    ],
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** The gateway a proxied path names, if the config declares it for this account. */
export function findGateway(
  config: StepwiseConfig,
  accountId: string,
  gatewayId: string,
): GatewayConfig | undefined {
  if (accountId !== config.accountId) return undefined;
  return config.gateways.find((gateway) => gateway.id === gatewayId);
}
